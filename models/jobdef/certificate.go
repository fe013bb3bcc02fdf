package jobdef

import (
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"software.sslmate.com/src/go-pkcs12"
)

// DecodePfx decodes a base64 PKCS#12 archive with its password into a TLS
// certificate (the leaf and any chain certificates) and the parsed leaf.
// The error says whether the base64, the archive or the password is wrong.
func DecodePfx(pfx, password string) (tls.Certificate, *x509.Certificate, error) {
	der, err := base64.StdEncoding.DecodeString(strings.TrimSpace(pfx))
	if err != nil {
		return tls.Certificate{}, nil, errors.New("is not valid base64")
	}
	key, leaf, chain, err := pkcs12.DecodeChain(der, password)
	if err != nil {
		if errors.Is(err, pkcs12.ErrIncorrectPassword) {
			return tls.Certificate{}, nil, errors.New("cannot be opened with the given password")
		}
		return tls.Certificate{}, nil, fmt.Errorf("is not a PKCS#12 (pfx) archive with a private key and a certificate: %v", err)
	}
	cert := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
	for _, c := range chain {
		cert.Certificate = append(cert.Certificate, c.Raw)
	}
	return cert, leaf, nil
}

// readCertificate checks the pfx of a clientCertificate authentication and
// fills in the thumbprint, subject and expiry shown instead of the secret.
func readCertificate(a *Authentication, path string, ps *problems) {
	_, leaf, err := DecodePfx(a.Pfx, a.Password)
	if err != nil {
		field := path + ".pfx"
		if strings.Contains(err.Error(), "password") {
			field = path + ".password"
		}
		ps.add(field, err.Error())
		return
	}
	sum := sha1.Sum(leaf.Raw)
	a.CertificateThumbprint = strings.ToUpper(hex.EncodeToString(sum[:]))
	a.CertificateSubjectName = leaf.Subject.String()
	a.CertificateExpiration = leaf.NotAfter.UTC()
}
