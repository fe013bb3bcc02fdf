// Package action executes the actions of jobs (SPEC §5). The actions
// themselves are parsed and validated by package jobdef; this package runs
// them: Dispatcher hands each attempt to the Executor of its type.
package action
