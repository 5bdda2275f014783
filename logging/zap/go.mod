module github.com/resilience4cata/r4c/logging/zap

go 1.26.0

require (
	github.com/resilience4cata/r4c v0.0.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	go.uber.org/zap v1.28.0
)

require (
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/resilience4cata/r4c => ../..
