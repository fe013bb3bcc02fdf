package web

import (
	"time"

	"sked/models"
)

// SigningOverlaps are the rotation's choices: how long the replaced
// secret keeps signing. The first is the default.
var SigningOverlaps = []Choice{
	{"24h", "keep the old secret valid for 24 hours"},
	{"1h", "keep the old secret valid for 1 hour"},
	{"7d", "keep the old secret valid for 7 days"},
	{"0", "stop the old secret at once"},
}

// signingOverlaps is the span of each SigningOverlaps value.
var signingOverlaps = map[string]time.Duration{"24h": 24 * time.Hour, "1h": time.Hour, "7d": 7 * 24 * time.Hour, "0": 0}

// SigningOverlap is the span of a SigningOverlaps value ("" is the
// default), and whether it is one.
func SigningOverlap(v string) (time.Duration, bool) {
	if v == "" {
		v = SigningOverlaps[0].Value
	}
	d, ok := signingOverlaps[v]
	return d, ok
}

// SigningIn is what NewSigningPanel shows.
type SigningIn struct {
	Workspace, ResourceGroup, Collection, CSRFToken string
	CanEdit                                         bool
	// Signing is the collection's secret, nil when it does not sign.
	Signing *models.Signing
	// NewSecret is a secret just made, shown once ("" for none).
	NewSecret      string
	Message, Error string
}

// NewSigningPanel is the #collection-signing panel at now, times in loc.
func NewSigningPanel(in SigningIn, loc *time.Location, now time.Time) SigningPanel {
	p := SigningPanel{CSRFToken: in.CSRFToken, CanEdit: in.CanEdit, Overlaps: SigningOverlaps,
		NewURL:    SigningPath(in.Workspace, in.ResourceGroup, in.Collection),
		RemoveURL: SigningRemovePath(in.Workspace, in.ResourceGroup, in.Collection),
		Message:   in.Message, Error: in.Error,
		Text: "Requests are not signed. With a signing secret, every HTTP request of this collection's jobs carries Standard Webhooks signature headers (webhook-id = Idempotency-Key), so that a target can check that Sked sent it."}
	if g := in.Signing; g != nil {
		p.Enabled = true
		p.Text = "Every HTTP request of this collection's jobs is signed (Standard Webhooks; webhook-id = Idempotency-Key). Secret set " +
			InstantIn(g.UpdatedAt, loc, now).Local + "."
		if g.Previous != "" && g.PreviousUntil != nil && now.Before(*g.PreviousUntil) {
			p.Overlap = "The previous secret also signs until " + InstantIn(*g.PreviousUntil, loc, now).Local + "."
		}
	}
	if in.NewSecret != "" {
		p.NewSecret = &NewSecret{ID: "signing-secret-value", Owner: in.Collection, Value: in.NewSecret}
	}
	return p
}
