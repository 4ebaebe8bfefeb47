//go:build ignore

// Gen writes the hostile graphs of package hostile as binary GraphDefs
// into a directory, for measuring `tflrun convert` on them:
//
//	go run ./convert/internal/hostile/gen.go DIR
//	/usr/bin/time -v tflrun convert DIR/chain_1m.pb --output_arrays out -o /tmp/out.tflite
//
// Every graph's output is the node "out".
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tflrun/tflrun/convert/internal/hostile"
	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"google.golang.org/protobuf/proto"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./convert/internal/hostile/gen.go DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	graphs := []struct {
		name string
		g    func() *tfpb.GraphDef
	}{
		{"chain_1m.pb", func() *tfpb.GraphDef { return hostile.Chain(1_000_000, "Relu", "Identity", "Neg") }},
		{"chain_100k.pb", func() *tfpb.GraphDef { return hostile.Chain(100_000, "Relu", "Identity", "Neg") }},
		{"chain_250k.pb", func() *tfpb.GraphDef { return hostile.Chain(250_000, "Relu", "Identity", "Neg") }},
		{"foldchain_1m.pb", func() *tfpb.GraphDef { return hostile.FoldChain(1_000_000) }},
		{"foldchain_100k.pb", func() *tfpb.GraphDef { return hostile.FoldChain(100_000) }},
		{"foldchain_250k.pb", func() *tfpb.GraphDef { return hostile.FoldChain(250_000) }},
		{"calls_100k.pb", func() *tfpb.GraphDef { return hostile.CallChain(100_000) }},
		{"calls_20k.pb", func() *tfpb.GraphDef { return hostile.CallChain(20_000) }},
		{"nested_10k.pb", func() *tfpb.GraphDef { return hostile.NestedCalls(10_000) }},
		{"nested_200.pb", func() *tfpb.GraphDef { return hostile.NestedCalls(200) }},
		{"consts_8x1g.pb", func() *tfpb.GraphDef { return hostile.BigConstants(8, 1<<28) }},
		{"fill_huge.pb", func() *tfpb.GraphDef { return hostile.HugeFill(1<<31-1, 1<<31-1, 1<<31-1, 4) }},
		{"fill_1g.pb", func() *tfpb.GraphDef { return hostile.HugeFill(1<<26, 4) }},
		{"while_4096x100.pb", func() *tfpb.GraphDef { return hostile.While(4096, 100) }},
		{"while_1e9.pb", func() *tfpb.GraphDef { return hostile.While(1_000_000_000, 1) }},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, g := range graphs {
		b, err := proto.Marshal(g.g())
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, g.name), b, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s: %d bytes\n", g.name, len(b))
	}
}
