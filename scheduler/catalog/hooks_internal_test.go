package catalog

import "context"

// SetOnChange makes c call f with every change passing changed.
func SetOnChange(c *Catalog, f func(context.Context, Actor, Change)) { c.onChange = f }

// RunContext is the context run's import runs with.
func RunContext(run *ImportRun) context.Context { return run.ctx }
