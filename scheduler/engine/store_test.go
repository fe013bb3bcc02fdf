package engine

import "sked/models"

// The real store is an engine Store: every operation the engine uses is
// one of its methods.
var _ Store = (*models.Store)(nil)
