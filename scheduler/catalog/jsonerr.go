package catalog

import (
	"encoding/json"
	"errors"
)

func asTypeError(err error, te **json.UnmarshalTypeError) bool { return errors.As(err, te) }

// jsonKind names a Go kind as a JSON type for messages.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "true or false"
	}
	return "a number"
}
