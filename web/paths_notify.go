package web

import (
	"net/url"
)

// The URLs of the notifications' pages (SPEC §13.3) and of a
// collection's signing secret; shapes as registered in handlers.

// ChannelsPath is the Channels page of a workspace (and its delivery log).
func ChannelsPath(ws string) string { return "/w/" + url.PathEscape(ws) + "/channels" }

// ChannelDeletePath deletes a channel (POST).
func ChannelDeletePath(ws, name string) string {
	return ChannelsPath(ws) + "/" + url.PathEscape(name) + "/delete"
}

// ChannelTestPath sends a test event to a channel (POST).
func ChannelTestPath(ws, name string) string {
	return ChannelsPath(ws) + "/" + url.PathEscape(name) + "/test"
}

// DeliveriesPath is the delivery log with the query q (filters and
// cursor), "" for none.
func DeliveriesPath(ws string, q url.Values) string {
	if len(q) == 0 {
		return ChannelsPath(ws)
	}
	return ChannelsPath(ws) + "?" + q.Encode()
}

// AlertsPath is where the alert forms of a workspace post (POST adds).
func AlertsPath(ws string) string { return "/w/" + url.PathEscape(ws) + "/alerts" }

// AlertDeletePath removes an alert rule (POST).
func AlertDeletePath(ws, name string) string {
	return AlertsPath(ws) + "/" + url.PathEscape(name) + "/delete"
}

// JobBellPath is the job page's "tell me when this job fails" (POST).
func JobBellPath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/bell" }

// SigningPath generates or rotates a collection's signing secret (POST).
func SigningPath(ws, rg, coll string) string { return CollectionPath(ws, rg, coll) + "/signing-secret" }

// SigningRemovePath removes a collection's signing secret (POST).
func SigningRemovePath(ws, rg, coll string) string { return SigningPath(ws, rg, coll) + "/remove" }
