package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sked/client"
)

// collectionFlags address collections on a server: --subscription (the
// workspace; empty for every one the token covers), --resource-group and
// --collection.
type collectionFlags struct {
	subscription, group, collection string
}

// register adds the flags to fs.
func (cf *collectionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.subscription, "subscription", "", "workspace (ARM subscription); default: every one the token covers, \"default\" with --collection")
	fs.StringVar(&cf.group, "resource-group", "", "resource group")
	fs.StringVar(&cf.collection, "collection", "", "job collection (needs --resource-group)")
}

// ref is the collection the flags name; a missing part is a usage error.
func (cf collectionFlags) ref(cmd string) (client.CollectionRef, error) {
	if cf.collection == "" || cf.group == "" {
		return client.CollectionRef{}, usagef("%s: give the job's collection with --resource-group RG --collection JC (and --subscription WS unless it is \"default\")", cmd)
	}
	return client.CollectionRef{Subscription: orDefault(cf.subscription), ResourceGroup: cf.group, Name: cf.collection}, nil
}

// collections lists the collections the flags select: the one named, or
// those of --subscription (of --resource-group only), or those of every
// workspace the token covers.
func (cf collectionFlags) collections(ctx context.Context, c *client.Client) ([]client.Resource, error) {
	if cf.collection != "" {
		ref, err := cf.ref("collections")
		if err != nil {
			return nil, err
		}
		r, err := c.Collection(ctx, ref)
		if err != nil {
			return nil, err
		}
		return []client.Resource{r}, nil
	}
	subs := []string{cf.subscription}
	if cf.subscription == "" {
		ws, err := c.Workspaces(ctx)
		if err != nil {
			return nil, err
		}
		subs = subs[:0]
		for _, w := range ws {
			subs = append(subs, w.ID)
		}
	}
	var out []client.Resource
	for _, s := range subs {
		rs, err := c.Collections(ctx, s, cf.group)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// cmdCollectionsList implements `sked collections list [--subscription
// WS] [--resource-group RG] [--output table|json]` against a server.
func cmdCollectionsList(ctx context.Context, sio stdio, args []string) error {
	var cf collectionFlags
	out := outputFormat("table")
	rf, rest, err := parseRemoteFlags("collections list", sio, args, func(fs *flag.FlagSet) {
		cf.register(fs)
		fs.Var(&out, "output", "table or json")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("usage: sked collections list [--subscription WS] [--resource-group RG] [--output table|json]")
	}
	c, err := rf.client()
	if err != nil {
		return err
	}
	colls, err := cf.collections(ctx, c)
	if err != nil {
		return fmt.Errorf("collections list: %w", err)
	}
	if out == "json" {
		return writeJSON(sio.out, map[string]any{"value": nonNil(colls)})
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKSPACE\tRESOURCE GROUP\tCOLLECTION\tSKU\tSTATE\tMAX JOBS\tLOCATION")
	for _, r := range colls {
		ref := refOfID(r.ID)
		var p struct {
			SKU struct {
				Name string `json:"name"`
			} `json:"sku"`
			State string `json:"state"`
			Quota struct {
				MaxJobCount int `json:"maxJobCount"`
			} `json:"quota"`
		}
		_ = json.Unmarshal(r.Properties, &p)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", ref.Subscription, ref.ResourceGroup, ref.Name, p.SKU.Name, p.State, p.Quota.MaxJobCount, r.Location)
	}
	return tw.Flush()
}

// refOfID reads the collection of an ARM id (of a collection or of one
// of its jobs).
func refOfID(id string) client.CollectionRef {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	var ref client.CollectionRef
	for i := 0; i+1 < len(segs); i++ {
		switch strings.ToLower(segs[i]) {
		case "subscriptions":
			ref.Subscription = segs[i+1]
		case "resourcegroups":
			ref.ResourceGroup = segs[i+1]
		case "jobcollections":
			ref.Name = segs[i+1]
		}
	}
	return ref
}

// writeJSON writes v indented, for scripts.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// nonNil returns s, or an empty slice for nil (so JSON shows []).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
