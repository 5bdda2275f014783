module github.com/resilience4cata/r4c/r4cfailsafe

go 1.26.0

require (
	github.com/failsafe-go/failsafe-go v0.9.8
	github.com/resilience4cata/r4c v0.0.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
)

require (
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/influxdata/tdigest v0.0.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/resilience4cata/r4c => ../
