package jobdef_test

import (
	"errors"
	"strings"
	"testing"

	"sked/models/jobdef"
	"sked/models/problem"
)

func TestParseRunChanges(t *testing.T) {
	for _, empty := range []string{"", "  ", "null", "{}", `{"request":null}`, `{"request":{}}`, `{"request":{"headers":{}}}`} {
		if c, err := jobdef.ParseRunChanges([]byte(empty)); c != nil || err != nil {
			t.Errorf("%q: %+v %v, want no change", empty, c, err)
		}
	}
	c, err := jobdef.ParseRunChanges([]byte(`{"Request":{"Headers":{"X-B":"2","x-a":"1"},"BODY":""}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Headers) != 2 || c.Headers[0].Name != "X-B" || c.Body == nil || *c.Body != "" {
		t.Errorf("changes %+v", c)
	}
	for _, tc := range []struct{ body, path string }{
		{`x`, "request"},
		{`"x"`, "request"},
		{`{"request":[]}`, "request"},
		{`{"request":{"uri":"https://x/"}}`, "request.uri"},
		{`{"request":{"headers":{"A B":"x"}}}`, "request.headers.A B"},
		{`{"request":{"headers":{"X":"a\r\nb"}}}`, "request.headers.X"},
		{`{"request":{"headers":[]}}`, "request.headers"},
		{`{"request":{"body":{}}}`, "request.body"},
		{`{"request":{"body":"` + strings.Repeat("x", jobdef.MaxBodyChars+1) + `"}}`, "request.body"},
	} {
		_, err := jobdef.ParseRunChanges([]byte(tc.body))
		var pl *problem.List
		if !errors.As(err, &pl) || pl.Problems[0].Path != tc.path {
			t.Errorf("%.60s: %v, want a problem at %s", tc.body, err, tc.path)
		}
	}
}

func TestRunChangesApplyAndCheck(t *testing.T) {
	job, err := jobdef.Parse([]byte(`{"action":{"type":"https","request":{"uri":"https://example.com/","method":"POST","body":"old",
		"headers":{"X-Keep":"k","x-replay":"0"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := jobdef.ParseRunChanges([]byte(`{"request":{"headers":{"X-Replay":"1","X-New":"n"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := jobdef.CheckRunChanges(job, c); err != nil {
		t.Fatal(err)
	}
	r := c.Apply(job.Action.Request)
	var got []string
	for _, h := range r.Headers {
		got = append(got, h.Name+"="+h.Value)
	}
	if strings.Join(got, " ") != "X-Keep=k X-Replay=1 X-New=n" || r.Body != "old" {
		t.Errorf("applied: %v %q", got, r.Body)
	}
	if len(job.Action.Request.Headers) != 2 || job.Action.Request.Headers[1].Value != "0" {
		t.Error("Apply changed the job's request")
	}
	masked := string(jobdef.MarshalRunChanges(c, func(name, v string) string { return strings.ToUpper(v) }))
	if masked != `{"request":{"headers":{"X-Replay":"1","X-New":"N"}}}` {
		t.Errorf("marshalled %s", masked)
	}
	queue, err := jobdef.Parse([]byte(`{"action":{"type":"storageQueue","queueMessage":{"storageAccount":"acct","queueName":"jobs-queue","sasToken":"?sig=x","message":"m"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var pl *problem.List
	if err := jobdef.CheckRunChanges(queue, c); !errors.As(err, &pl) || pl.Problems[0].Path != "request" {
		t.Errorf("changes of a queue action: %v", err)
	}
}
