package web

// JobNotePath changes the note of a disabled job (POST).
func JobNotePath(ws, rg, coll, job string) string { return JobPath(ws, rg, coll, job) + "/note" }

// CollectionNotePath changes the note of a disabled collection (POST).
func CollectionNotePath(ws, rg, coll string) string { return CollectionPath(ws, rg, coll) + "/note" }
