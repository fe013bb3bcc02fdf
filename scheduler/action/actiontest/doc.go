// Package actiontest gives tests of actions their real peers: the Azurite
// storage emulator (started from the project's node_modules), a Service
// Bus REST peer that verifies SAS signatures and message headers, and an
// OAuth token authority. It is for tests only.
package actiontest
