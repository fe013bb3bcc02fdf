package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"sked/client"
)

// TestClientMonitors drives a monitor through the Go client against a
// real serve: create, read, list, rotate, delete.
func TestClientMonitors(t *testing.T) {
	env := remoteSked(t)
	c, err := client.New(env["SKED_SERVER"], env["SKED_TOKEN"])
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	type monitor struct {
		Name, Status, PingURL string
	}
	read := func(raw json.RawMessage) monitor {
		var m monitor
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	raw, err := c.PutObject(ctx, "default", client.Monitors, "etl", []byte(`{"schedule":{"frequency":"hour"},"grace":"PT10M"}`))
	if err != nil {
		t.Fatal(err)
	}
	created := read(raw)
	if created.Name != "etl" || created.Status != "new" || created.PingURL == "" {
		t.Fatalf("created %s", raw)
	}
	if raw, err = c.Object(ctx, "default", client.Monitors, "etl"); err != nil || read(raw).PingURL != created.PingURL {
		t.Errorf("get %s %v", raw, err)
	}
	if list, err := c.Objects(ctx, "default", client.Monitors); err != nil || len(list) != 1 {
		t.Errorf("list %d %v", len(list), err)
	}
	if raw, err = c.RotateMonitor(ctx, "default", "etl"); err != nil || read(raw).PingURL == created.PingURL {
		t.Errorf("rotate %s %v", raw, err)
	}
	_, err = c.PutObject(ctx, "default", client.Monitors, "etl", []byte(`{"schedule":{"frequency":"hour"},"grace":"P9D"}`))
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest {
		t.Errorf("a bad grace: %v", err)
	}
	if err := c.DeleteObject(ctx, "default", client.Monitors, "etl"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Object(ctx, "default", client.Monitors, "etl"); !errors.As(err, &ce) || ce.Status != http.StatusNotFound {
		t.Errorf("after delete: %v", err)
	}
}
