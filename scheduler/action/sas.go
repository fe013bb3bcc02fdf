package action

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// ServiceBusSAS returns the Authorization header value of a Service Bus
// request signed with a shared access key, as Microsoft documents it
// ("Generate a Shared Access Signature token"):
//
//	SharedAccessSignature sr={enc(resourceURI)}&sig={enc(signature)}&se={expiry}&skn={keyName}
//
// where enc is URL (query) encoding, expiry is in Unix seconds and the
// signature is the base64 HMAC-SHA256, keyed with the UTF-8 bytes of key,
// of enc(resourceURI) + "\n" + expiry.
func ServiceBusSAS(resourceURI, keyName, key string, expiry time.Time) string {
	sr := url.QueryEscape(resourceURI)
	se := strconv.FormatInt(expiry.Unix(), 10)
	sig := ServiceBusSignature(key, sr, se)
	return fmt.Sprintf("SharedAccessSignature sr=%s&sig=%s&se=%s&skn=%s", sr, url.QueryEscape(sig), se, url.QueryEscape(keyName))
}

// ServiceBusSignature returns the base64 HMAC-SHA256, keyed with key, of
// encodedResource + "\n" + expiry: the sig of a Service Bus SAS token
// before URL encoding.
func ServiceBusSignature(key, encodedResource, expiry string) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(encodedResource + "\n" + expiry))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
