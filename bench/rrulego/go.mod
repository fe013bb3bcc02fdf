module sked/bench/rrulego

go 1.26.8

require sked v0.0.0

require github.com/teambition/rrule-go v1.8.2

replace sked => ../..
