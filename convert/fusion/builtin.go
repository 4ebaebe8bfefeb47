package fusion

// BuiltinOptions tune the built-in rules.
type BuiltinOptions struct {
	// LSTMCellClip is the cell_clip the LSTM rules write (Keras LSTM,
	// IndyLSTM, LSTMCellSimple, LayerNormalizedLstmCellSimple). TensorFlow
	// Lite's converter writes 10; 0 disables clipping, which is what
	// Keras computes.
	LSTMCellClip float32
}

// DefaultBuiltinOptions are the options of the rules in Default: the
// values TensorFlow Lite's converter uses.
var DefaultBuiltinOptions = BuiltinOptions{LSTMCellClip: 10}

// RegisterBuiltins adds tflrun's built-in rules to r:
//
//	lstm_*                          KerasLSTM → UNIDIRECTIONAL_SEQUENCE_LSTM
//	indy_lstm_*                     KerasLSTM{Indy} → UNIDIRECTIONAL_SEQUENCE_LSTM (diagonal)
//	gru_*                           KerasGRU → UNIDIRECTIONAL_SEQUENCE_GRU (custom)
//	LSTMCellSimple[,options]        LSTMCellSimple → LSTM
//	LayerNormalizedLstmCellSimple…  LSTMCellSimple{LayerNorm} → LSTM
//	embedding_matmul                EmbeddingMatmul → EMBEDDING_LOOKUP
//
// A Keras Bidirectional(LSTM) layer is two composite calls (the forward
// layer, and the backward one with go_backwards) merged by ordinary ops,
// so it becomes two fused operators with the merge lowered as usual.
// Layers without an annotation run their cell in a plain While loop,
// which the loop rules recognise by what the body computes (see
// OfferLoops):
//
//	keras-lstm-loop    KerasLSTMLoop → UNIDIRECTIONAL_SEQUENCE_LSTM
//	keras-gru-loop     KerasGRULoop → UNIDIRECTIONAL_SEQUENCE_GRU (custom)
//	keras-simple-rnn   KerasSimpleRNN → UNIDIRECTIONAL_SEQUENCE_RNN It fails when one of the names is already registered
//
// in r.
func RegisterBuiltins(r *Registry, opts BuiltinOptions) error {
	prefixes := []struct {
		p    string
		rule Rule
	}{
		{"lstm_", KerasLSTM{CellClip: opts.LSTMCellClip}},
		{"indy_lstm_", KerasLSTM{CellClip: opts.LSTMCellClip, Indy: true}},
		{"gru_", KerasGRU{}},
		// The cell composites may carry options after a comma
		// ("LSTMCellSimple,CoupleInputForgetGates"); the rule parses them.
		{"LSTMCellSimple", LSTMCellSimple{CellClip: opts.LSTMCellClip}},
		{"LayerNormalizedLstmCellSimple", LSTMCellSimple{CellClip: opts.LSTMCellClip, LayerNorm: true}},
	}
	for _, p := range prefixes {
		if err := r.RegisterPrefix(p.p, p.rule); err != nil {
			return err
		}
	}
	exact := []struct {
		n    string
		rule Rule
	}{
		{"embedding_matmul", EmbeddingMatmul{}},
	}
	for _, e := range exact {
		if err := r.Register(e.n, e.rule); err != nil {
			return err
		}
	}
	// The LSTM and GRU loop rules first: a GRU body written per gate
	// (implementation=1) has products of a SimpleRNN's shapes.
	for _, rule := range []Rule{KerasLSTMLoop{CellClip: opts.LSTMCellClip}, KerasGRULoop{}, KerasSimpleRNN{}} {
		if err := r.RegisterLoop(rule); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	if err := RegisterBuiltins(Default, DefaultBuiltinOptions); err != nil {
		panic(err)
	}
}
