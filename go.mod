module github.com/tflrun/tflrun

go 1.26.0

require (
	github.com/google/flatbuffers v25.12.19+incompatible
	github.com/klauspost/cpuid/v2 v2.4.2
	golang.org/x/sys v0.50.0
	google.golang.org/protobuf v1.36.12
)

require github.com/golang/snappy v1.0.0
