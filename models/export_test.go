package models

// RecordOutcomesSQL is FinishAttempts' statement, for the tests of its plan.
var RecordOutcomesSQL = recordOutcomesSQL
