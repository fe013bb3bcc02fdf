package actiontest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// StorageVersion is the x-ms-version and signed version (sv) the helpers
// use.
const StorageVersion = "2018-03-28"

// sign returns the base64 HMAC-SHA256 of s keyed with the base64 account
// key.
func sign(accountKey, s string) string {
	key, err := base64.StdEncoding.DecodeString(accountKey)
	if err != nil {
		panic("actiontest: account key is not base64: " + err.Error())
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// AccountSAS returns an account SAS token (without '?') for the queue
// service of account, for service, container and object resources, with
// permissions (for example "rwdlacup"), valid until expiry. See "Create an
// account SAS" (version 2015-04-05 and later).
func AccountSAS(account, accountKey, permissions string, expiry time.Time) string {
	se := expiry.UTC().Format(time.RFC3339)
	sts := strings.Join([]string{account, permissions, "q", "sco", "", se, "", "", StorageVersion}, "\n") + "\n"
	v := url.Values{"sv": {StorageVersion}, "ss": {"q"}, "srt": {"sco"}, "sp": {permissions}, "se": {se},
		"sig": {sign(accountKey, sts)}}
	return v.Encode()
}

// QueueSAS returns a service SAS token (without '?') for one queue of
// account with permissions (r read/peek, a add, u update, p process),
// valid until expiry. See "Create a service SAS" (queue, version
// 2015-04-05 and later).
func QueueSAS(account, accountKey, queue, permissions string, expiry time.Time) string {
	se := expiry.UTC().Format(time.RFC3339)
	resource := "/queue/" + account + "/" + queue
	sts := strings.Join([]string{permissions, "", se, resource, "", "", "", StorageVersion}, "\n")
	v := url.Values{"sv": {StorageVersion}, "sp": {permissions}, "se": {se}, "sig": {sign(accountKey, sts)}}
	return v.Encode()
}

// CreateQueue creates queue in Azurite's development account, signed with
// an account SAS.
func (a *Azurite) CreateQueue(t testing.TB, queue string) {
	t.Helper()
	sas := AccountSAS(AzuriteAccount, AzuriteKey, "rwdlacup", time.Now().Add(time.Hour))
	req, err := http.NewRequest(http.MethodPut, a.QueueURL(queue)+"?"+sas, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-version", StorageVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("create queue %s: %v", queue, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("create queue %s: %s\n%s", queue, resp.Status, b)
	}
}

// PeekMessages returns the decoded texts of up to 32 messages at the front
// of queue, read with the SAS token sas (which needs the r permission).
// Message texts are base64 on the wire.
func (a *Azurite) PeekMessages(t testing.TB, queue, sas string) []string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.QueueURL(queue)+"/messages?peekonly=true&numofmessages=32&"+sas, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-version", StorageVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("peek %s: %v", queue, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("peek %s: %s\n%s", queue, resp.Status, body)
	}
	var list struct {
		Messages []struct {
			MessageText string `xml:"MessageText"`
		} `xml:"QueueMessage"`
	}
	if err := xml.Unmarshal(body, &list); err != nil {
		t.Fatalf("peek %s: %v\n%s", queue, err, body)
	}
	var out []string
	for _, m := range list.Messages {
		text, err := base64.StdEncoding.DecodeString(m.MessageText)
		if err != nil {
			t.Fatalf("peek %s: message text %q is not base64: %v", queue, m.MessageText, err)
		}
		out = append(out, string(text))
	}
	return out
}

// String describes the emulator for failure messages.
func (a *Azurite) String() string { return fmt.Sprintf("azurite at %s", a.URL) }
