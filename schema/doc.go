// Package schema holds tflrun's TensorFlow Lite flatbuffer schema
// (schema.fbs), the Go that flatc generates from it (schema_generated.go,
// committed), and a hand-written structural verifier for untrusted model
// files.
//
// The schema reproduces TFLite's file layout exactly (schema version 3,
// file identifier "TFL3"): every enum value, union type number and table
// field slot matches TFLite's own schema, so models written by TensorFlow's
// converter, LiteRT or TFLite Micro tooling read back field for field.
//
// The generated accessors (GetRootAsModel, (*Model).Subgraphs, ...) trust
// the bytes they read: on a malformed buffer they index out of range and
// panic. Call VerifyModel on every buffer from outside the program first; a
// buffer it accepts can be walked with any generated accessor, including
// the object API (UnPack), without panicking.
//
// The generated code depends only on the flatbuffers Go runtime
// (github.com/google/flatbuffers/go). To regenerate after editing
// schema.fbs, run `go generate ./schema` with flatc 2.0.8 on PATH (Debian
// package flatbuffers-compiler); see README.md.
package schema

//go:generate flatc --go --go-namespace schema --gen-object-api --gen-onefile -o . schema.fbs
//go:generate gofmt -w schema_generated.go
