package signal_test

import (
	"strings"
	"testing"

	"github.com/tflrun/tflrun/interpreter"
	"github.com/tflrun/tflrun/ops/signal"
)

// TestNames: every operator TFLite Micro's signal/micro/kernels registers
// (micro_mutable_op_resolver.h's AddCustom("Signal…") calls) has a kernel,
// and the default resolver finds it.
func TestNames(t *testing.T) {
	want := "SignalDelay SignalEnergy SignalFftAutoScale SignalFilterBank SignalFilterBankLog " +
		"SignalFilterBankSpectralSubtraction SignalFilterBankSquareRoot SignalFramer SignalIrfft " +
		"SignalOverlapAdd SignalPCAN SignalRfft SignalStacker SignalWindow"
	if got := strings.Join(signal.Names(), " "); got != want {
		t.Fatalf("Names() = %s\nwant      %s", got, want)
	}
	r := interpreter.DefaultResolver()
	for _, name := range signal.Names() {
		reg, err := r.FindCustom(name)
		if err != nil {
			t.Fatal(err)
		}
		if reg.New() == nil {
			t.Fatalf("%s: no kernel", name)
		}
	}
}
