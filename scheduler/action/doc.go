// Package action executes the actions of jobs (SPEC §5). The actions
// themselves are parsed and validated by package jobdef; this package runs
// them: a Dispatcher hands each attempt to the Executor of its type —
// HTTPExecutor (http and https, with basic, clientCertificate and
// activeDirectoryOAuth authentication), StorageQueueExecutor (Azure Storage
// Queue "Put Message") and ServiceBusExecutor (Service Bus "Send Message"
// with a SAS token).
//
// Every connection, whatever the executor, is dialled through a Guard that
// refuses loopback, link-local, private, unique-local, unspecified and
// similar addresses unless Config.AllowTargets allows them; the check is
// made on the address actually dialled, after DNS resolution.
//
// A Result's message never contains the action's secrets (passwords, pfx,
// client secret, SAS token or key, and the tokens and signatures made from
// them), even when a peer echoes them: they are replaced by "[redacted]".
// The package logs nothing.
package action
