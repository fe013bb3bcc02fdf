module sked/bench/rrulego

go 1.26.8

require sked v0.0.0

require github.com/teambition/rrule-go v1.8.2

require (
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	software.sslmate.com/src/go-pkcs12 v0.7.4 // indirect
)

replace sked => ../..
