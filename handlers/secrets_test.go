package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestSecretsNeverLeave saves jobs holding every kind of secret through
// the API, then reads them back every way there is (API get and list,
// export, the pages, the edit form) and checks that no secret appears,
// nor in the log.
func TestSecretsNeverLeave(t *testing.T) {
	a := newApp(t, false).withToken()
	a.signIn("api", "password123")
	coll := rgPath("rg") + "/jc"
	wantStatus(t, a.api(http.MethodPut, coll+apiVersion, `{"properties":{"sku":{"name":"Standard"}}}`), http.StatusCreated)
	secrets := []string{"basic-pass-1", "oauth-secret-2", "sv=2020&sig=sas-token-3", "sas-key-4"}
	jobs := map[string]string{
		"basic": `{"properties":{"action":{"type":"https","request":{"uri":"https://example.com/","method":"GET",
			"authentication":{"type":"basic","username":"u","password":"basic-pass-1"}},
			"errorAction":{"type":"http","request":{"uri":"http://example.com/e","method":"POST","authentication":{"type":"ActiveDirectoryOAuth","tenant":"t","audience":"a","clientId":"c","secret":"oauth-secret-2"}}}},
			"recurrence":{"frequency":"hour"}}}`,
		"queue": `{"properties":{"action":{"type":"storageQueue","queueMessage":{"storageAccount":"acct","queueName":"jobs","sasToken":"sv=2020&sig=sas-token-3","message":"m"}},"recurrence":{"frequency":"hour"}}}`,
		"bus": `{"properties":{"action":{"type":"serviceBusTopic","serviceBusTopicMessage":{"namespace":"my-namespace","topicPath":"t","message":"m",
			"authentication":{"type":"sharedAccessKey","sasKeyName":"k","sasKey":"sas-key-4"}}},"recurrence":{"frequency":"hour"}}}`,
	}
	var seen []string
	for name, body := range jobs {
		r := a.api(http.MethodPut, coll+"/jobs/"+name+apiVersion, body)
		wantStatus(t, r, http.StatusCreated)
		seen = append(seen, r.body)
		r = a.api(http.MethodGet, coll+"/jobs/"+name+apiVersion, "")
		wantStatus(t, r, http.StatusOK)
		seen = append(seen, r.body)
		for _, p := range []string{"/c/default/rg/jc/jobs/" + name, "/c/default/rg/jc/jobs/" + name + "/edit", "/c/default/rg/jc/jobs/" + name + "/export.json"} {
			r = a.get(p)
			wantStatus(t, r, http.StatusOK)
			seen = append(seen, r.body)
		}
	}
	for _, p := range []string{coll + "/jobs" + apiVersion, "/api/v1/export", "/api/v1/export?resourceGroup=rg&jobCollection=jc"} {
		r := a.api(http.MethodGet, p, "")
		wantStatus(t, r, http.StatusOK)
		seen = append(seen, r.body)
	}
	for _, p := range []string{"/", "/c/default/rg/jc", "/export"} {
		r := a.get(p)
		wantStatus(t, r, http.StatusOK)
		seen = append(seen, r.body)
	}
	seen = append(seen, a.logs.String())
	for _, s := range secrets {
		for i, text := range seen {
			if strings.Contains(text, s) || strings.Contains(text, strings.ReplaceAll(s, "&", "&amp;")) {
				t.Errorf("secret %q leaked in output %d: %.300s", s, i, text)
			}
		}
	}
	if sec := a.secretsOf(coll, "queue"); sec["action.queueMessage.sasToken#storagequeue"] != "sv=2020&sig=sas-token-3" {
		t.Errorf("the SAS token is not kept: %v", sec)
	}
}
