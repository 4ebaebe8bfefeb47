package metadata

import (
	flatbuffers "github.com/google/flatbuffers/go"
)

// Marshal encodes m as a ModelMetadata flatbuffer with the file identifier
// "M001", the form Parse reads and TensorFlow Lite's metadata tools
// write. Union members are written from the field that is set (Image,
// Normalization, ...), whatever Kind or Type says; zero scalars and empty
// strings and vectors are left out, as flatbuffers writers do by default.
func (m *ModelMetadata) Marshal() []byte {
	b := flatbuffers.NewBuilder(1024)
	w := writer{b}
	subgraphs := w.tables(len(m.Subgraphs), func(i int) flatbuffers.UOffsetT { return w.subgraph(&m.Subgraphs[i]) })
	files := w.files(m.AssociatedFiles)
	strs := w.strs(m.Name, m.Description, m.Version, m.Author, m.License, m.MinParserVersion)
	b.StartObject(8)
	w.ref(0, strs[0])
	w.ref(1, strs[1])
	w.ref(2, strs[2])
	w.ref(3, subgraphs)
	w.ref(4, strs[3])
	w.ref(5, strs[4])
	w.ref(6, files)
	w.ref(7, strs[5])
	b.FinishWithFileIdentifier(b.EndObject(), []byte(FileIdentifier))
	return b.FinishedBytes()
}

type writer struct{ b *flatbuffers.Builder }

// ref sets offset field slot, unless off is 0 (absent).
func (w writer) ref(slot int, off flatbuffers.UOffsetT) {
	if off != 0 {
		w.b.PrependUOffsetTSlot(slot, off, 0)
	}
}

func (w writer) str(s string) flatbuffers.UOffsetT {
	if s == "" {
		return 0
	}
	return w.b.CreateString(s)
}

func (w writer) strs(ss ...string) []flatbuffers.UOffsetT {
	out := make([]flatbuffers.UOffsetT, len(ss))
	for i, s := range ss {
		out[i] = w.str(s)
	}
	return out
}

// offsets writes a vector of offsets (0 when empty).
func (w writer) offsets(offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	if len(offs) == 0 {
		return 0
	}
	w.b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		w.b.PrependUOffsetT(offs[i])
	}
	return w.b.EndVector(len(offs))
}

func (w writer) tables(n int, one func(i int) flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	offs := make([]flatbuffers.UOffsetT, n)
	for i := range offs {
		offs[i] = one(i)
	}
	return w.offsets(offs)
}

func (w writer) stringVector(ss []string) flatbuffers.UOffsetT {
	offs := make([]flatbuffers.UOffsetT, len(ss))
	for i, s := range ss {
		offs[i] = w.b.CreateString(s)
	}
	return w.offsets(offs)
}

func (w writer) floats(v []float32) flatbuffers.UOffsetT {
	if len(v) == 0 {
		return 0
	}
	w.b.StartVector(4, len(v), 4)
	for i := len(v) - 1; i >= 0; i-- {
		w.b.PrependFloat32(v[i])
	}
	return w.b.EndVector(len(v))
}

func (w writer) uints(v []uint32) flatbuffers.UOffsetT {
	if len(v) == 0 {
		return 0
	}
	w.b.StartVector(4, len(v), 4)
	for i := len(v) - 1; i >= 0; i-- {
		w.b.PrependUint32(v[i])
	}
	return w.b.EndVector(len(v))
}

func (w writer) files(fs []AssociatedFile) flatbuffers.UOffsetT {
	return w.tables(len(fs), func(i int) flatbuffers.UOffsetT {
		f := &fs[i]
		s := w.strs(f.Name, f.Description, f.Locale, f.Version)
		w.b.StartObject(5)
		w.ref(0, s[0])
		w.ref(1, s[1])
		w.b.PrependInt8Slot(2, int8(f.Type), 0)
		w.ref(3, s[2])
		w.ref(4, s[3])
		return w.b.EndObject()
	})
}

func (w writer) subgraph(s *SubgraphMetadata) flatbuffers.UOffsetT {
	tensors := func(ts []TensorMetadata) flatbuffers.UOffsetT {
		return w.tables(len(ts), func(i int) flatbuffers.UOffsetT { return w.tensor(&ts[i]) })
	}
	groups := func(gs []TensorGroup) flatbuffers.UOffsetT {
		return w.tables(len(gs), func(i int) flatbuffers.UOffsetT {
			name, names := w.str(gs[i].Name), w.stringVector(gs[i].TensorNames)
			w.b.StartObject(2)
			w.ref(0, name)
			w.ref(1, names)
			return w.b.EndObject()
		})
	}
	in, out := tensors(s.Inputs), tensors(s.Outputs)
	files := w.files(s.AssociatedFiles)
	inPU, outPU := w.processUnits(s.InputProcessUnits), w.processUnits(s.OutputProcessUnits)
	inG, outG := groups(s.InputTensorGroups), groups(s.OutputTensorGroups)
	custom := w.tables(len(s.CustomMetadata), func(i int) flatbuffers.UOffsetT {
		c := &s.CustomMetadata[i]
		name := w.str(c.Name)
		var data flatbuffers.UOffsetT
		if len(c.Data) > 0 {
			w.b.StartVector(1, len(c.Data), 16) // force_align: 16
			for j := len(c.Data) - 1; j >= 0; j-- {
				w.b.PrependByte(c.Data[j])
			}
			data = w.b.EndVector(len(c.Data))
		}
		w.b.StartObject(2)
		w.ref(0, name)
		w.ref(1, data)
		return w.b.EndObject()
	})
	strs := w.strs(s.Name, s.Description)
	w.b.StartObject(10)
	w.ref(0, strs[0])
	w.ref(1, strs[1])
	w.ref(2, in)
	w.ref(3, out)
	w.ref(4, files)
	w.ref(5, inPU)
	w.ref(6, outPU)
	w.ref(7, inG)
	w.ref(8, outG)
	w.ref(9, custom)
	return w.b.EndObject()
}

func (w writer) tensor(t *TensorMetadata) flatbuffers.UOffsetT {
	dims := w.stringVector(t.DimensionNames)
	var content, stats flatbuffers.UOffsetT
	if t.Content != nil {
		content = w.content(t.Content)
	}
	pus := w.processUnits(t.ProcessUnits)
	if t.Stats != nil {
		max, min := w.floats(t.Stats.Max), w.floats(t.Stats.Min)
		w.b.StartObject(2)
		w.ref(0, max)
		w.ref(1, min)
		stats = w.b.EndObject()
	}
	files := w.files(t.AssociatedFiles)
	strs := w.strs(t.Name, t.Description)
	w.b.StartObject(7)
	w.ref(0, strs[0])
	w.ref(1, strs[1])
	w.ref(2, dims)
	w.ref(3, content)
	w.ref(4, pus)
	w.ref(5, stats)
	w.ref(6, files)
	return w.b.EndObject()
}

func (w writer) content(c *Content) flatbuffers.UOffsetT {
	var props flatbuffers.UOffsetT
	kind := c.Kind
	switch {
	case c.Image != nil:
		kind = ContentImage
		var size flatbuffers.UOffsetT
		if d := c.Image.DefaultSize; d != nil {
			w.b.StartObject(2)
			w.b.PrependUint32Slot(0, d.Width, 0)
			w.b.PrependUint32Slot(1, d.Height, 0)
			size = w.b.EndObject()
		}
		w.b.StartObject(2)
		w.b.PrependInt8Slot(0, int8(c.Image.ColorSpace), 0)
		w.ref(1, size)
		props = w.b.EndObject()
	case c.BoundingBox != nil:
		kind = ContentBoundingBox
		idx := w.uints(c.BoundingBox.Index)
		w.b.StartObject(3)
		w.ref(0, idx)
		w.b.PrependInt8Slot(1, int8(c.BoundingBox.Type), 0)
		w.b.PrependInt8Slot(2, int8(c.BoundingBox.CoordinateType), 0)
		props = w.b.EndObject()
	case c.Audio != nil:
		kind = ContentAudio
		w.b.StartObject(2)
		w.b.PrependUint32Slot(0, c.Audio.SampleRate, 0)
		w.b.PrependUint32Slot(1, c.Audio.Channels, 0)
		props = w.b.EndObject()
	case kind == ContentFeature:
		w.b.StartObject(0)
		props = w.b.EndObject()
	}
	var rng flatbuffers.UOffsetT
	if c.Range != nil {
		w.b.StartObject(2)
		w.b.PrependInt32Slot(0, c.Range.Min, 0)
		w.b.PrependInt32Slot(1, c.Range.Max, 0)
		rng = w.b.EndObject()
	}
	w.b.StartObject(3)
	if props != 0 {
		w.b.PrependUint8Slot(0, uint8(kind), 0)
	}
	w.ref(1, props)
	w.ref(2, rng)
	return w.b.EndObject()
}

func (w writer) processUnits(us []ProcessUnit) flatbuffers.UOffsetT {
	return w.tables(len(us), func(i int) flatbuffers.UOffsetT {
		u := &us[i]
		var opts flatbuffers.UOffsetT
		var typ ProcessUnitType
		switch {
		case u.Normalization != nil:
			typ = ProcessUnitNormalization
			mean, std := w.floats(u.Normalization.Mean), w.floats(u.Normalization.Std)
			w.b.StartObject(2)
			w.ref(0, mean)
			w.ref(1, std)
			opts = w.b.EndObject()
		case u.ScoreCalibration != nil:
			typ = ProcessUnitScoreCalibration
			w.b.StartObject(2)
			w.b.PrependInt8Slot(0, int8(u.ScoreCalibration.Transformation), 0)
			w.b.PrependFloat32Slot(1, u.ScoreCalibration.DefaultScore, 0)
			opts = w.b.EndObject()
		case u.ScoreThresholding != nil:
			typ = ProcessUnitScoreThresholding
			w.b.StartObject(1)
			w.b.PrependFloat32Slot(0, u.ScoreThresholding.GlobalScoreThreshold, 0)
			opts = w.b.EndObject()
		case u.BertTokenizer != nil:
			typ = ProcessUnitBertTokenizer
			v := w.files(u.BertTokenizer.VocabFile)
			w.b.StartObject(1)
			w.ref(0, v)
			opts = w.b.EndObject()
		case u.SentencePieceTokenizer != nil:
			typ = ProcessUnitSentencePieceTokenizer
			m, v := w.files(u.SentencePieceTokenizer.SentencePieceModel), w.files(u.SentencePieceTokenizer.VocabFile)
			w.b.StartObject(2)
			w.ref(0, m)
			w.ref(1, v)
			opts = w.b.EndObject()
		case u.RegexTokenizer != nil:
			typ = ProcessUnitRegexTokenizer
			p, v := w.str(u.RegexTokenizer.DelimRegexPattern), w.files(u.RegexTokenizer.VocabFile)
			w.b.StartObject(2)
			w.ref(0, p)
			w.ref(1, v)
			opts = w.b.EndObject()
		}
		w.b.StartObject(2)
		if opts != 0 {
			w.b.PrependUint8Slot(0, uint8(typ), 0)
		}
		w.ref(1, opts)
		return w.b.EndObject()
	})
}
