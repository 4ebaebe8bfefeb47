// Command hostilegen writes the hostile models of issue 10's runtime
// classes (package internal/hostile) to a directory, at the sizes the
// issue measured, so that the CLI and the library can be measured on
// them (peak RSS, wall time) in processes of their own:
//
//	go run ./internal/hostile/hostilegen -out /tmp/hostile
//	/usr/bin/time -v tflrun run /tmp/hostile/chain-300000.tflite
//
// Each file is named after its class and size; the list printed gives
// the file sizes. The models are generated, never fetched, so they may be
// regenerated at will.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/tflrun/tflrun/internal/hostile"
	"github.com/tflrun/tflrun/schema"
)

func main() {
	out := flag.String("out", "hostile", "directory to write the models to (made if missing)")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	write := func(name string, b []byte) {
		p := filepath.Join(*out, name+".tflite")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%10d  %s\n", len(b), p)
	}
	for _, op := range hostile.TwoWriterOps {
		b, err := hostile.TwoWriters(op)
		if err != nil {
			log.Fatal(err)
		}
		write("two-writers-"+schema.EnumNamesBuiltinOperator[op], b)
	}
	write("self-consumer", hostile.SelfConsumer())
	write("resize-bilinear-0batch", hostile.ResizeZeroBatch(true))
	write("resize-nearest-0batch", hostile.ResizeZeroBatch(false))
	write("resize-bilinear-1batch", hostile.Resize(true, []int32{1, 4, 4, 1}, math.MaxInt32/4, 1))
	write("fully-connected-int8-empty", hostile.FullyConnectedInt8Empty())
	for _, side := range []int32{4, 64} {
		for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorMAX_POOL_2D, schema.BuiltinOperatorAVERAGE_POOL_2D} {
			write(fmt.Sprintf("%s-%dx%d-filter-2^31-1", schema.EnumNamesBuiltinOperator[op], side, side),
				hostile.PoolOn(op, schema.TensorTypeFLOAT32, []int32{1, side, side, 2}, 1, math.MaxInt32))
		}
	}
	pools := map[schema.BuiltinOperator][]schema.TensorType{
		schema.BuiltinOperatorAVERAGE_POOL_2D: {schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeUINT8, schema.TensorTypeINT16},
		schema.BuiltinOperatorMAX_POOL_2D:     {schema.TensorTypeFLOAT32, schema.TensorTypeINT8, schema.TensorTypeUINT8, schema.TensorTypeINT16},
		schema.BuiltinOperatorL2_POOL_2D:      {schema.TensorTypeFLOAT32},
	}
	for _, op := range []schema.BuiltinOperator{schema.BuiltinOperatorAVERAGE_POOL_2D, schema.BuiltinOperatorMAX_POOL_2D, schema.BuiltinOperatorL2_POOL_2D} {
		for _, typ := range pools[op] {
			write(fmt.Sprintf("%s-%s-4x32768-filter-2^31-1", schema.EnumNamesBuiltinOperator[op], schema.EnumNamesTensorType[typ]), hostile.PoolWide(op, typ))
		}
	}
	// Every size docs/hostile.md's table measures.
	for _, n := range []int{100000, 300000, 1000000} {
		write(fmt.Sprintf("chain-%d", n), hostile.Chain(n))
	}
	for _, n := range []int{100000, 300000, 900000} {
		write(fmt.Sprintf("inputs-%d", n), hostile.ManyInputs(n))
	}
	write("shared-operators-990000", hostile.SharedOperators(990000))
}
