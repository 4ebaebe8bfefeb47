module github.com/tflrun/tflrun

go 1.26.0

require (
	github.com/google/flatbuffers v25.12.19+incompatible
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	golang.org/x/sys v0.50.0
	google.golang.org/protobuf v1.36.12
)

require github.com/inconshreveable/mousetrap v1.1.0 // indirect
