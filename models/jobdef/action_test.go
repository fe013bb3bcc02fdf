package jobdef

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"sked/models/problem"
	"strings"
	"testing"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// testPfx returns a base64 PKCS#12 archive with a fresh self-signed
// certificate for CN=sked-test, protected by password.
func testPfx(t *testing.T, password string) (string, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "sked-test"},
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pfx, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(pfx), cert
}

func TestParseActions(t *testing.T) {
	pfx, _ := testPfx(t, "pfx-pass")
	for _, tc := range []struct {
		name, action string
		check        func(t *testing.T, a *Action)
	}{
		{"http with headers in order", `{"type":"Http","request":{"uri":"http://example.com/a?b=c","method":"put","headers":{"B":"2","A":"1"},"body":"x"}}`,
			func(t *testing.T, a *Action) {
				if a.Kind != KindHTTP || a.Type != "Http" || a.Request.Method != "PUT" || len(a.Request.Headers) != 2 || a.Request.Headers[0].Name != "B" {
					t.Errorf("%+v %+v", a, a.Request)
				}
				if a.RetryPolicy != DefaultRetryPolicy || a.HasRetryPolicy {
					t.Errorf("default retry policy: %+v", a.RetryPolicy)
				}
			}},
		{"basic", `{"type":"https","request":{"uri":"https://example.com/","method":"GET","authentication":{"type":"BASIC","username":"u","password":"p"}}}`,
			func(t *testing.T, a *Action) {
				if au := a.Request.Authentication; au == nil || au.Kind != AuthBasic || au.Username != "u" || au.Password != "p" {
					t.Errorf("%+v", a.Request.Authentication)
				}
			}},
		{"notSpecified is none", `{"type":"http","request":{"uri":"http://example.com/","method":"GET","authentication":{"type":"NotSpecified"}}}`,
			func(t *testing.T, a *Action) {
				if a.Request.Authentication != nil {
					t.Errorf("%+v", a.Request.Authentication)
				}
			}},
		{"client certificate", `{"type":"https","request":{"uri":"https://example.com/","method":"GET","authentication":{"type":"clientcertificate","pfx":"` + pfx + `","password":"pfx-pass"}}}`,
			func(t *testing.T, a *Action) {
				au := a.Request.Authentication
				if au.Kind != AuthClientCertificate || len(au.CertificateThumbprint) != 40 || au.CertificateSubjectName != "CN=sked-test" ||
					!au.CertificateExpiration.Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("%+v", au)
				}
			}},
		{"oauth", `{"type":"http","request":{"uri":"http://example.com/","method":"GET","authentication":{"type":"ActiveDirectoryOAuth","tenant":"t","audience":"https://a","clientId":"c","secret":"s"}}}`,
			func(t *testing.T, a *Action) {
				if au := a.Request.Authentication; au.Kind != AuthActiveDirectory || au.Tenant != "t" || au.Secret != "s" {
					t.Errorf("%+v", au)
				}
			}},
		{"storage queue", `{"type":"StorageQueue","queueMessage":{"storageAccount":"acct1","queueName":"jobs-q","sasToken":"?sv=1&sig=x","message":"hello"}}`,
			func(t *testing.T, a *Action) {
				if q := a.QueueMessage; a.Kind != KindStorageQueue || q.StorageAccount != "acct1" || q.SASToken != "?sv=1&sig=x" || q.Message != "hello" {
					t.Errorf("%+v", a.QueueMessage)
				}
			}},
		{"service bus topic", `{"type":"serviceBusTopic","serviceBusTopicMessage":{"namespace":"my-ns1","topicPath":"t1","message":"m",
			"authentication":{"type":"SharedAccessKey","sasKeyName":"k","sasKey":"v"},"brokeredMessageProperties":{"label":"L","timeToLive":"PT1H","forcePersistence":true},
			"customMessageProperties":{"Color":"red"}}}`,
			func(t *testing.T, a *Action) {
				m := a.ServiceBusMessage
				if a.Kind != KindServiceBusTopic || m.TopicPath != "t1" || m.SASKey != "v" || m.BrokeredProperties.TimeToLiveDuration != time.Hour ||
					!*m.BrokeredProperties.ForcePersistence || m.CustomProperties[0].Value != "red" {
					t.Errorf("%+v", m)
				}
			}},
		{"retry policy and error action", `{"type":"http","request":{"uri":"http://example.com/","method":"GET"},"retryPolicy":{"retryType":"Fixed","retryInterval":"00:01:00","retryCount":2},
			"errorAction":{"type":"http","request":{"uri":"http://example.com/e","method":"POST"},"retryPolicy":{"retryType":"None"}}}`,
			func(t *testing.T, a *Action) {
				if a.RetryPolicy.Interval != time.Minute || a.RetryPolicy.Count != 2 || a.RetryPolicy.MaxAttempts() != 3 {
					t.Errorf("%+v", a.RetryPolicy)
				}
				if a.ErrorAction == nil || a.ErrorAction.RetryPolicy.MaxAttempts() != 1 {
					t.Errorf("error action %+v", a.ErrorAction)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job, err := Parse([]byte(`{"action":` + tc.action + `}`))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, job.Action)
		})
	}
}

func TestPfxWrongPassword(t *testing.T) {
	pfx, _ := testPfx(t, "right")
	_, err := Parse([]byte(`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET","authentication":{"type":"clientCertificate","pfx":"` + pfx + `","password":"wrong"}}}}`))
	ve := problem.As(err)
	if ve == nil || len(ve.Problems) != 1 || ve.Problems[0].Path != "action.request.authentication.password" ||
		!strings.Contains(ve.Problems[0].Message, "password") {
		t.Fatalf("got %v", err)
	}
}

// TestMarshalRoundTrip checks that the canonical form parses back to the
// same canonical form, never holds a secret, and that kept secrets fill
// in what a later input leaves out.
func TestMarshalRoundTrip(t *testing.T) {
	pfx, _ := testPfx(t, "pfx-pass")
	in := `{"startTime":"2026-03-29T02:30:00","state":"Disabled","misfirePolicy":"runOnce",
		"action":{"type":"Https","request":{"uri":"https://example.com/","method":"post","headers":{"Z":"1","A":"2"},
		"authentication":{"type":"clientCertificate","pfx":"` + pfx + `","password":"pfx-pass"}},
		"retryPolicy":{"retryType":"fixed","retryInterval":"PT45S","retryCount":2},"timeout":"PT90S",
		"errorAction":{"type":"storageQueue","queueMessage":{"storageAccount":"acct","queueName":"errors","sasToken":"sv=1&sig=abc","message":"failed"}}},
		"recurrence":{"frequency":"Month","interval":2,"count":5,"schedule":{"monthlyOccurrences":[{"day":"Friday","Occurrence":-1}],"hours":[5],"minutes":[15]},
		"timeZone":"Europe/Berlin"}}`
	job, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out := job.MarshalProperties(MarshalOptions{})
	for _, secret := range []string{pfx[:40], "pfx-pass", "sig=abc"} {
		if strings.Contains(string(out), secret) {
			t.Fatalf("secret %q written out: %s", secret, out)
		}
	}
	want := `{"startTime":"2026-03-29T02:30:00","action":{"type":"Https","request":{"uri":"https://example.com/","method":"POST","headers":{"Z":"1","A":"2"},` +
		`"authentication":{"type":"ClientCertificate","certificateThumbprint":"` + job.Action.Request.Authentication.CertificateThumbprint +
		`","certificateSubjectName":"CN=sked-test","certificateExpirationDate":"2030-01-01T00:00:00Z"}},` +
		`"retryPolicy":{"retryType":"fixed","retryInterval":"PT45S","retryCount":2},"timeout":"PT90S",` +
		`"errorAction":{"type":"storageQueue","queueMessage":{"storageAccount":"acct","queueName":"errors","message":"failed"}}},` +
		`"recurrence":{"frequency":"month","interval":2,"count":5,"schedule":{"minutes":[15],"hours":[5],"monthlyOccurrences":[{"day":"friday","occurrence":-1}]},"timeZone":"Europe/Berlin"},` +
		`"state":"disabled","misfirePolicy":"runOnce"}`
	if string(out) != want {
		t.Errorf("canonical form\n got %s\nwant %s", out, want)
	}
	secrets := job.Secrets()
	if len(secrets) != 3 || secrets["action.errorAction.queueMessage.sasToken#storagequeue"] != "sv=1&sig=abc" {
		t.Errorf("secrets: %v", secrets)
	}
	// The stored form needs its secrets back to be a valid job.
	if _, err := Parse(out); err == nil || !strings.Contains(err.Error(), "action.request.authentication.pfx: is required") {
		t.Errorf("stored form without secrets: %v", err)
	}
	again, err := ParseWith(out, Options{Keep: secrets})
	if err != nil {
		t.Fatal(err)
	}
	if got := again.MarshalProperties(MarshalOptions{}); string(got) != string(out) {
		t.Errorf("second round\n got %s\nwant %s", got, out)
	}
	if again.Action.ErrorAction.QueueMessage.SASToken != "sv=1&sig=abc" {
		t.Errorf("kept SAS token: %+v", again.Action.ErrorAction.QueueMessage)
	}
	// Displayed without secrets, a certificate keeps what it states.
	shown, err := ParseWith(out, Options{SecretsOptional: true})
	if err != nil {
		t.Fatal(err)
	}
	if string(shown.MarshalProperties(MarshalOptions{})) != string(out) {
		t.Errorf("display form differs: %s", shown.MarshalProperties(MarshalOptions{}))
	}
	// Resolved for API clients, a wall-clock start time gets its offset
	// (02:30 on the day Berlin springs forward does not exist: 03:30 CEST).
	var m map[string]any
	inZone := func(w time.Time, loc *time.Location) time.Time { // recurrence.WallInstant in production
		return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
	}
	_ = json.Unmarshal(job.MarshalProperties(MarshalOptions{ResolveLocal: inZone}), &m)
	if m["startTime"] != "2026-03-29T03:30:00+02:00" {
		t.Errorf("resolved startTime %v", m["startTime"])
	}
}

// TestKeptSecretsNeedTheSameKind checks that a kept secret only fills a
// field of the same kind of object: a basic password does not become a
// certificate's password.
func TestKeptSecretsNeedTheSameKind(t *testing.T) {
	keep := Secrets{"action.request.authentication.password#basic": "p"}
	_, err := ParseWith([]byte(`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET","authentication":{"type":"clientCertificate"}}}}`), Options{Keep: keep})
	if err == nil || !strings.Contains(err.Error(), "pfx: is required") {
		t.Errorf("got %v", err)
	}
	job, err := ParseWith([]byte(`{"action":{"type":"http","request":{"uri":"http://example.com/","method":"GET","authentication":{"type":"basic","username":"u","password":""}}}}`), Options{Keep: keep})
	if err != nil || job.Action.Request.Authentication.Password != "p" {
		t.Errorf("got %v %+v", err, job)
	}
}

func TestFormatISODuration(t *testing.T) {
	for d, want := range map[time.Duration]string{30 * time.Second: "PT30S", 90 * time.Second: "PT1M30S", 26 * time.Hour: "P1DT2H", 1500 * time.Millisecond: "PT1.5S", 0: "PT0S"} {
		if got := FormatISODuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}
