package signal_test

import (
	"fmt"
	"log"

	"github.com/tflrun/tflrun/internal/flexbuffers"
	"github.com/tflrun/tflrun/internal/optest"
	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops/signal"
	"github.com/tflrun/tflrun/schema"
)

// flexMap writes a FlexBuffer map of int options, as TensorFlow writes a
// Signal operator's attributes.
func flexMap(kv ...any) []byte {
	var b flexbuffers.Builder
	m := b.StartMap()
	for i := 0; i < len(kv); i += 2 {
		b.Key(kv[i].(string))
		b.Int(int64(kv[i+1].(int)))
	}
	b.EndMap(m)
	buf, err := b.Finish()
	if err != nil {
		log.Fatal(err)
	}
	return buf
}

// A model of two Signal operators, the start of a TFLite Micro audio
// front end, runs in the default interpreter: SignalRfft transforms 8
// int16 samples (kissfft's fixed point scales by 1/8), SignalEnergy
// squares the magnitudes of bins 1 to 3.
func Example() {
	b := optest.NewBuilder()
	audio := b.Tensor("audio", schema.TensorTypeINT16, []int32{8}, nil)
	spectrum := b.Tensor("spectrum", schema.TensorTypeINT16, []int32{10}, nil)
	energy := b.Tensor("energy", schema.TensorTypeUINT32, []int32{5}, nil)
	b.Inputs(audio)
	b.Outputs(energy)
	b.Custom(signal.RfftName, []int32{audio}, []int32{spectrum}, flexMap("T", 7, "fft_length", 8))
	b.Custom(signal.EnergyName, []int32{spectrum}, []int32{energy}, flexMap("end_index", 4, "start_index", 1))

	model, err := interpreter.LoadBytes(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	it, err := interpreter.New(model, nil) // DefaultResolver has the Signal kernels
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	if err := it.AllocateTensors(); err != nil {
		log.Fatal(err)
	}
	it.Input(0).CopyFrom([]int16{8000, 0, 0, 0, 0, 0, 0, 0}) // an impulse
	if err := it.Invoke(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(it.Output(0).Uint32s())
	fmt.Println(len(signal.Names()), "Signal operators")
	// Output:
	// [0 1000000 1000000 1000000 0]
	// 14 Signal operators
}
