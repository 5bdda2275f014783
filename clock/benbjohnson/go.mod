module github.com/resilience4cata/r4c/clock/benbjohnson

go 1.26.0

require (
	github.com/benbjohnson/clock v1.3.5
	github.com/resilience4cata/r4c v0.0.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace github.com/resilience4cata/r4c => ../..
