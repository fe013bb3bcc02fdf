package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"sked/handlers"
	"sked/models"
	"sked/scheduler/catalog"
)

// Tests of the Channels page, its delivery log and the alert forms
// (channels_pages.go, alerts_pages.go).

const channelsPage = "/w/default/channels"

// newNotifyFixture is newPGFixture whose test events may reach loopback
// receivers (httptest servers).
func newNotifyFixture(t *testing.T) *pgFixture {
	t.Helper()
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	a := newApp(t, false, func(d *handlers.Deps) { d.AllowTargets = loopback })
	a.setupAdmin("admin", "password123")
	a.signIn("admin", "password123")
	ref := models.CollectionRef{WorkspaceID: "default", ResourceGroup: "rg", Name: "jc"}
	if _, err := a.store.PutCollection(context.Background(), ref, &models.JobCollection{SKU: "Standard", State: models.CollectionEnabled}); err != nil {
		t.Fatal(err)
	}
	coll, err := a.store.CollectionByRef(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return &pgFixture{app: a, base: "/c/default/rg/jc", coll: coll, cat: catalog.New(a.store, a.clock.Now)}
}

// putChannel stores a channel through the catalog and returns its
// generated secret, if any.
func (f *pgFixture) putChannel(name, body string) string {
	f.t.Helper()
	saved, err := f.cat.PutChannel(context.Background(), catalog.System("test"), "default", name, []byte(body))
	if err != nil {
		f.t.Fatal(err)
	}
	return saved.Secret
}

// asMember signs a new user of role in "default" in on the fixture's
// client (the admin is signed out).
func (f *pgFixture) asMember(name string, role models.Role) {
	f.t.Helper()
	u, err := f.store.CreateUser(context.Background(), models.NewUser{Username: name, Password: "correct horse battery"})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.store.SetMemberRole(context.Background(), "default", u.ID, role); err != nil {
		f.t.Fatal(err)
	}
	f.client = newClient()
	f.signIn(name, "correct horse battery")
}

// receiver is an httptest server answering status with "thanks".
func receiver(t *testing.T, status int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "thanks")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestChannelsPageEmpty(t *testing.T) {
	f := newNotifyFixture(t)
	r := f.get(channelsPage)
	wantStatus(t, r, http.StatusOK)
	for _, sel := range []string{"#channels-empty", "#channel-form-webhook", "#channel-form-slack", "#channel-form-teams",
		"#channel-form-email", "#delivery-empty", "#alerts-no-channel", "#delivery-filter", "#nav-channels[aria-current=page]"} {
		if r.doc.Find(sel).Length() != 1 {
			t.Errorf("the empty page lacks %s", sel)
		}
	}
	// Every field of the forms has a label.
	r.doc.Find("#channel-forms input:not([type=hidden]), #channel-forms select").Each(func(_ int, s *goquery.Selection) {
		id := s.AttrOr("id", "")
		if id == "" || r.doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("field %s has no label", id)
		}
	})
	// A workspace the user may not see is a 404.
	f.otherWorkspace()
	wantStatus(t, f.get("/w/other/channels"), http.StatusNotFound)
	// Bad filters are a 400 naming the parameter.
	for q, name := range map[string]string{"status=lost": "status", "event=exploded": "event", "since=1y": "since", "before=x": "before"} {
		r := f.get(channelsPage + "?" + q)
		wantStatus(t, r, http.StatusBadRequest)
		if !strings.Contains(r.body, name) {
			t.Errorf("?%s: the 400 does not name %s", q, name)
		}
	}
}

func TestChannelCreateShowsTheSecretOnce(t *testing.T) {
	f := newNotifyFixture(t)
	r := f.hxPost(channelsPage, url.Values{"type": {"webhook"}, "name": {"ops-hook"}, "url": {"https://hooks.example.com/sked"},
		"description": {"On-call receiver"}})
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "channels")
	secret := strings.TrimSpace(r.doc.Find("#new-secret-value").Text())
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("no secret shown: %s", r.body)
	}
	if r.doc.Find(`#new-secret-value-copy[data-copy-target="new-secret-value"]`).Length() != 1 {
		t.Error("no copy button")
	}
	stored, err := f.store.ChannelByName(context.Background(), "default", "ops-hook")
	if err != nil || stored.Secrets["signingSecret"] != secret {
		t.Fatalf("stored secret differs from the one shown: %v", err)
	}
	if r.doc.Find(`#alerts[hx-swap-oob="true"] #alert-channel option[value="ops-hook"]`).Length() != 1 {
		t.Error("the workspace's alerts panel does not come along with the new channel")
	}
	row := strings.Join(strings.Fields(r.doc.Find("#channel-ops-hook").Text()), " ")
	for _, want := range []string{"ops-hook", "Webhook", "default", "https://hooks.example.com/sked", "On-call receiver", "0 alert rules"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
	// Never again: not on the page, not after adding another channel.
	r = f.get(channelsPage)
	if strings.Contains(r.body, secret) || r.doc.Find("#new-secret-value").Length() != 0 {
		t.Error("the page shows the secret again")
	}
	r = f.hxPost(channelsPage, url.Values{"type": {"slack"}, "name": {"ops-slack"}, "url": {"https://hooks.slack.com/services/T/B/secretpart"}})
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, "secretpart") || r.doc.Find("#new-secret-value").Length() != 0 {
		t.Errorf("a Slack channel shows a secret: %s", r.doc.Find("#channel-ops-slack").Text())
	}
	if got := pgTexts(r.doc.Find("#channel-list .channel-name")); len(got) != 2 || got[0] != "ops-hook" {
		t.Errorf("channels %v", got)
	}
	// Without htmx: the whole page, with the secret of the new webhook.
	r = f.formPost(channelsPage, url.Values{"type": {"webhook"}, "name": {"second"}, "url": {"https://example.com/h"}})
	wantStatus(t, r, http.StatusOK)
	if !strings.HasPrefix(r.doc.Find("#new-secret-value").Text(), "whsec_") || r.doc.Find("#delivery-log").Length() != 1 {
		t.Error("the page answer lacks the secret or the log")
	}
}

func TestChannelCreateRefusesBadInput(t *testing.T) {
	f := newNotifyFixture(t)
	f.putChannel("taken", `{"type":"webhook","properties":{"url":"https://example.com/a"}}`)
	before := f.notifyRows()
	for _, tc := range []struct {
		form  url.Values
		field string
		want  string
	}{
		{url.Values{"type": {"webhook"}, "name": {"hook"}, "url": {"not a url"}}, "webhook-url", "The URL is not an absolute http or https URL."},
		{url.Values{"type": {"slack"}, "name": {"s"}, "url": {"http://hooks.slack.com/x"}}, "slack-url", "The URL must be an https URL."},
		{url.Values{"type": {"teams"}, "name": {"bad name!"}, "url": {"https://example.com/t"}}, "teams-name", "is not a channel name"},
		{url.Values{"type": {"email"}, "name": {"mail"}, "host": {"smtp.example.com"}, "port": {"70000"}, "security": {"starttls"},
			"from": {"sked@example.com"}, "to": {"ops@example.com"}}, "email-port", "70000 is not a port"},
		{url.Values{"type": {"email"}, "name": {"mail"}, "host": {"smtp.example.com"}, "port": {"587"}, "security": {"starttls"},
			"from": {"sked@example.com"}, "to": {"ops@example.com, nobody"}}, "email-to", "is not a mail address"},
		{url.Values{"type": {"webhook"}, "name": {"TAKEN"}, "url": {"https://example.com/b"}}, "webhook-name", "A channel TAKEN exists already"},
	} {
		r := f.hxPost(channelsPage, tc.form)
		wantStatus(t, r, http.StatusUnprocessableEntity)
		pgWantFragment(t, r, "channels")
		msg := r.doc.Find("#" + tc.field + "-error").Text()
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%v: error at %s %q, want %q", tc.form, tc.field, msg, tc.want)
		}
		if _, open := r.doc.Find("#channel-form-" + tc.form.Get("type")).Attr("open"); !open {
			t.Errorf("%v: the refused form is closed", tc.form)
		}
	}
	// Without htmx the page comes back with the form's errors.
	r := f.formPost(channelsPage, url.Values{"type": {"slack"}, "name": {"s"}, "url": {"ftp://x"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if r.doc.Find("#slack-url-error").Length() != 1 || r.doc.Find("#delivery-log").Length() != 1 {
		t.Error("the refused page lacks the error or the log")
	}
	r = f.hxPost(channelsPage, url.Values{"type": {"pigeon"}, "name": {"p"}})
	wantStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(r.body, "type") {
		t.Errorf("400 does not name the type: %s", r.body)
	}
	if f.notifyRows() != before {
		t.Error("a refused form stored something")
	}
}

func TestChannelTestShowsTheAnswerInPlace(t *testing.T) {
	f := newNotifyFixture(t)
	ok, broken := receiver(t, http.StatusOK), receiver(t, http.StatusInternalServerError)
	f.putChannel("good", `{"type":"webhook","properties":{"url":"`+ok.URL+`/in"}}`)
	f.putChannel("bad", `{"type":"webhook","properties":{"url":"`+broken.URL+`/in"}}`)
	r := f.hxPost(channelsPage+"/good/test", nil)
	wantStatus(t, r, http.StatusOK)
	pgWantFragment(t, r, "channel-good")
	answer := strings.Join(strings.Fields(r.doc.Find(".channel-test-answer").Text()), " ")
	if !strings.Contains(answer, "Delivered") || !strings.Contains(answer, "HTTP 200") {
		t.Errorf("answer %q", answer)
	}
	if got := r.Header.Get("HX-Trigger-After-Settle"); got != "sked-deliveries-changed" {
		t.Errorf("HX-Trigger-After-Settle %q", got)
	}
	r = f.hxPost(channelsPage+"/bad/test", nil)
	answer = strings.Join(strings.Fields(r.doc.Find(".channel-test-answer").Text()), " ")
	if !strings.Contains(answer, "Failed") || !strings.Contains(answer, "500") {
		t.Errorf("answer %q", answer)
	}
	// The log lists both, newest first.
	r = f.hxGet(channelsPage)
	pgWantFragment(t, r, "delivery-log")
	rows := pgTexts(r.doc.Find("#delivery-log tbody tr"))
	if len(rows) != 2 || !strings.Contains(rows[0], "Failed") || !strings.Contains(rows[0], "bad") ||
		!strings.Contains(rows[1], "Delivered") || !strings.Contains(rows[1], "good") || !strings.Contains(rows[1], "1 try") {
		t.Errorf("log rows %q", rows)
	}
	// Without htmx: the page, with the answer in the channel's row.
	r = f.formPost(channelsPage+"/good/test", nil)
	wantStatus(t, r, http.StatusOK)
	if !strings.Contains(r.doc.Find("#channel-good .channel-test-answer").Text(), "Delivered") {
		t.Error("the page lacks the answer")
	}
	wantStatus(t, f.hxPost(channelsPage+"/missing/test", nil), http.StatusNotFound)
}

func TestChannelDelete(t *testing.T) {
	f := newNotifyFixture(t)
	f.putChannel("ops", `{"type":"webhook","properties":{"url":"https://example.com/a"}}`)
	if _, _, err := f.cat.PutAlertRule(context.Background(), catalog.System("test"), "default", "faults", []byte(`{"channel":"ops","events":["occurrenceFaulted"]}`)); err != nil {
		t.Fatal(err)
	}
	r := f.hxPost(channelsPage+"/ops/delete", nil)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if msg := r.doc.Find("#channels-error").Text(); !strings.Contains(msg, "faults") {
		t.Errorf("refusal %q does not name the rule", msg)
	}
	if err := f.cat.DeleteAlertRule(context.Background(), catalog.System("test"), "default", "faults"); err != nil {
		t.Fatal(err)
	}
	r = f.hxPost(channelsPage+"/ops/delete", nil)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#channels-empty").Length() != 1 || !strings.Contains(r.doc.Find("#channels-message").Text(), "ops deleted") {
		t.Errorf("after delete: %s", r.body)
	}
	wantStatus(t, f.hxPost(channelsPage+"/ops/delete", nil), http.StatusNotFound)
}

func TestChannelsPageForReaders(t *testing.T) {
	f := newNotifyFixture(t)
	f.putChannel("ops", `{"type":"webhook","properties":{"url":"https://example.com/a"}}`)
	f.asMember("rita", models.RoleReader)
	r := f.get(channelsPage)
	wantStatus(t, r, http.StatusOK)
	if r.doc.Find("#channel-ops").Length() != 1 {
		t.Error("a reader does not see the channel")
	}
	for _, sel := range []string{"#channel-forms", "#channel-ops form", "#alert-form", "#alerts form"} {
		if r.doc.Find(sel).Length() != 0 {
			t.Errorf("a reader sees %s", sel)
		}
	}
	before := f.notifyRows()
	for _, p := range []string{channelsPage, channelsPage + "/ops/test", channelsPage + "/ops/delete", "/w/default/alerts"} {
		r := f.formPost(p, url.Values{"type": {"webhook"}, "name": {"x"}, "url": {"https://example.com/x"}, "channel": {"ops"}, "events": {"recovered"}})
		wantStatus(t, r, http.StatusForbidden)
		if !strings.Contains(r.body, "owner role") {
			t.Errorf("POST %s: 403 does not name the owner role", p)
		}
	}
	if f.notifyRows() != before {
		t.Error("a reader's POST stored something")
	}
}

func TestDeliveryLogFiltersAndPages(t *testing.T) {
	f := newNotifyFixture(t)
	ctx := context.Background()
	f.putChannel("ops", `{"type":"webhook","properties":{"url":"https://example.com/a"}}`)
	f.putChannel("mail", `{"type":"email","properties":{"host":"smtp.example.com","from":"s@example.com","to":["o@example.com"]}}`)
	ops, _ := f.store.ChannelByName(ctx, "default", "ops")
	mail, _ := f.store.ChannelByName(ctx, "default", "mail")
	now := f.clock.Now()
	for i := range 120 {
		ch, ev, ok := ops, "occurrenceFaulted", i%3 != 0
		if i%4 == 0 {
			ch, ev = mail, "recovered"
		}
		_, err := f.store.LogDelivery(ctx, models.NotificationWrite{WorkspaceID: "default", ChannelID: ch.ID, ChannelName: ch.Name,
			EventID: fmt.Sprintf("ev-%d", i), EventType: ev,
			Event: []byte(`{"collection":"jc","job":"nightly"}`)},
			models.DeliveryResult{Delivered: ok, StatusCode: 200, Answer: "HTTP 200 OK", Now: now})
		if err != nil {
			t.Fatal(err)
		}
	}
	r := f.get(channelsPage)
	if n := r.doc.Find("#delivery-log tbody tr").Length(); n != 50 {
		t.Errorf("first page %d rows, want 50", n)
	}
	older := r.doc.Find("#delivery-older").AttrOr("href", "")
	if !strings.Contains(older, "before=") {
		t.Fatalf("no older link: %q", older)
	}
	seen := map[string]bool{}
	r.doc.Find("#delivery-log tbody tr").Each(func(_ int, s *goquery.Selection) { seen[s.AttrOr("id", "")] = true })
	total := 50
	for older != "" {
		r = f.hxGet(older)
		pgWantFragment(t, r, "delivery-log")
		r.doc.Find("#delivery-log tbody tr").Each(func(_ int, s *goquery.Selection) {
			if seen[s.AttrOr("id", "")] {
				t.Errorf("row %s on two pages", s.AttrOr("id", ""))
			}
			seen[s.AttrOr("id", "")] = true
			total++
		})
		if r.doc.Find("#delivery-newest").Length() != 1 {
			t.Error("a later page has no link to the newest")
		}
		older = r.doc.Find("#delivery-older").AttrOr("href", "")
	}
	if total != 120 {
		t.Errorf("pages hold %d rows, want 120", total)
	}
	count := func(q string) int {
		r := f.hxGet(channelsPage + "?" + q)
		wantStatus(t, r, http.StatusOK)
		return r.doc.Find("#delivery-log tbody tr").Length()
	}
	if n := count("channel=mail&event=recovered"); n != 30 {
		t.Errorf("mail/recovered: %d rows, want 30", n)
	}
	if n := count("channel=ops&status=failed"); n != 30 { // i%3==0 and i%4!=0: 40-10
		t.Errorf("ops/failed: %d rows, want 30", n)
	}
	f.sql(`UPDATE notifications SET created_at = $1 WHERE channel_name = 'mail'`, now.Add(-48*time.Hour))
	if n := count("since=24h&channel=mail"); n != 0 {
		t.Errorf("mail in the last 24 h: %d rows, want 0", n)
	}
	r = f.hxGet(channelsPage + "?status=failed&event=missed")
	if r.doc.Find("#delivery-empty").Length() != 1 || !strings.Contains(r.doc.Find("#delivery-empty").Text(), "matches this filter") {
		t.Error("an empty filter result is not said")
	}
}
