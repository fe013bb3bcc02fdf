package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserWorkspaceReader creates a workspace on the workspaces page,
// invites a second user as reader, and signs in as that user: the job is
// there, its edit, run and delete controls are not (screenshots at
// 1280 px).
func TestBrowserWorkspaceReader(t *testing.T) {
	base, _ := startSked(t, newDataDir(t))
	ctx := newBrowser(t)
	setupAndSignIn(t, ctx, base)

	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 900),
		// A second user.
		chromedp.Navigate(base+"/users"),
		chromedp.WaitVisible(chromedp.ID("user-form")),
		chromedp.SendKeys(chromedp.ID("username"), "bob"),
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.SendKeys(chromedp.ID("confirm"), "password123"),
		chromedp.Click(chromedp.ID("user-create")),
		chromedp.WaitVisible(chromedp.CSS(`li[data-username="bob"]`)),
		// A workspace, from the header's "More" menu.
		chromedp.Click(chromedp.ID("nav-more-button")),
		chromedp.Click(chromedp.ID("nav-workspaces")),
		chromedp.WaitVisible(chromedp.ID("workspace-form")),
		chromedp.SendKeys(chromedp.ID("workspace-id"), "team"),
		chromedp.SendKeys(chromedp.ID("workspace-name"), "Team A"),
		chromedp.Click(chromedp.ID("workspace-create")),
		chromedp.WaitVisible(chromedp.ID("workspace-team")),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "roles-01-workspaces-1280")
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/workspaces/team/members"),
		chromedp.WaitVisible(chromedp.ID("member-form")),
		chromedp.SendKeys(chromedp.ID("member-username"), "bob"),
		chromedp.SetValue(chromedp.ID("member-role"), "reader"),
		chromedp.Click(chromedp.ID("member-add")),
		chromedp.WaitVisible(chromedp.CSS(`#member-list li[data-username="bob"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "roles-02-members-1280")

	// A job in the workspace, through the API with the admin's token.
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/tokens"),
		chromedp.WaitVisible(chromedp.ID("token-form")),
		chromedp.SendKeys(chromedp.ID("token-name"), "setup"),
		chromedp.Click(chromedp.ID("token-create")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-token"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	token, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="new-token"]`)))
	if err != nil {
		t.Fatal(err)
	}
	coll := base + "/subscriptions/team/resourceGroups/rg/providers/Microsoft.Scheduler/jobCollections/jc"
	put := func(url, body string) {
		req, _ := http.NewRequest(http.MethodPut, url+"?api-version=2016-03-01", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT %s: %d", url, resp.StatusCode)
		}
	}
	put(coll, `{"location":"westeurope","properties":{"sku":{"name":"Standard"},"state":"Enabled"}}`)
	put(coll+"/jobs/nightly", `{"properties":{"startTime":"2026-01-01T09:00:00Z","action":{"type":"https","request":{"uri":"https://example.com/","method":"GET"}},"recurrence":{"frequency":"day","interval":1}}}`)

	// bob signs in: he sees the job, without controls that change it.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.Navigate(base+"/signin"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "bob"),
		chromedp.SendKeys(chromedp.ID("password"), "password123"),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.ID("current-user")),
		chromedp.Navigate(base+"/c/team/rg/jc/jobs/nightly"),
		chromedp.WaitVisible(chromedp.ID("job-status")),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "roles-03-reader-job-1280")
	for _, sel := range []string{"#job-run", "#job-delete", "#job-disable", `a[href$="/edit"]`, "#job-export"} {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('"+strings.ReplaceAll(sel, `'`, `\'`)+"').length"))
		if err != nil || n != 0 {
			t.Errorf("a reader sees %s (%d, %v)", sel, n, err)
		}
	}
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
	if err != nil || !strings.Contains(title, "nightly") {
		t.Errorf("job page title %q (%v)", title, err)
	}

	// The job page says who changed it last and links to its entries of
	// the audit log; the workspace's audit log shows bob's invitation.
	last, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#last-changed a")))
	if err != nil || !strings.HasPrefix(last, "Last changed by admin with token setup") {
		t.Errorf("last changed %q (%v)", last, err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#last-changed a")),
		chromedp.WaitVisible(chromedp.ID("audit-list")),
	)
	if err != nil {
		t.Fatal(err)
	}
	actions, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("audit-list")))
	if err != nil || !strings.Contains(actions, "job.put") || strings.Contains(actions, "member.put") {
		t.Errorf("the job's audit entries: %q (%v)", actions, err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(base+"/w/team/audit"),
		chromedp.WaitVisible(chromedp.ID("audit-list")),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "roles-04-reader-audit-1280")
	invite, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		for (const li of document.querySelectorAll('#audit-list > li')) {
			if (li.querySelector('.audit-action').textContent.trim() === 'member.put') return li.textContent;
		}
		return '';
	})()`))
	if err != nil || !strings.Contains(invite, "members/bob") || !strings.Contains(invite, "admin") || !strings.Contains(invite, "reader") {
		t.Errorf("the audit page does not show bob's invitation by admin: %q (%v)", invite, err)
	}
}
