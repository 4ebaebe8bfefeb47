package metadata

import "fmt"

// Parse decodes a ModelMetadata flatbuffer (the contents of a model's
// "TFLITE_METADATA" buffer). It checks the file identifier "M001" and
// every offset it follows; the error is a *FormatError naming the field.
// The result shares no memory with b.
func Parse(b []byte) (*ModelMetadata, error) {
	if len(b) < 8 {
		return nil, &FormatError{Path: "model_metadata", Offset: -1, Reason: fmt.Sprintf("buffer of %d bytes is too short for a flatbuffer (need at least 8)", len(b))}
	}
	if id := string(b[4:8]); id != FileIdentifier {
		return nil, &FormatError{Path: "model_metadata", Offset: 4, Reason: fmt.Sprintf("file identifier is %q, want %q (not TensorFlow Lite Metadata)", id, FileIdentifier)}
	}
	r := &reader{b: b, work: int64(len(b))*workPerByte + workFloor}
	pos, err := r.deref(0, "model_metadata")
	if err != nil {
		return nil, err
	}
	t, err := r.tableAt(pos, "model_metadata")
	if err != nil {
		return nil, err
	}
	return parseModel(t)
}

// The slots below are the field ids of metadata_schema.fbs (declaration
// order; a union takes two: its type, then its value).

func parseModel(t table) (*ModelMetadata, error) {
	m := &ModelMetadata{}
	var err error
	e := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	e(func() (err error) { m.Name, err = t.str(0, "name"); return })
	e(func() (err error) { m.Description, err = t.str(1, "description"); return })
	e(func() (err error) { m.Version, err = t.str(2, "version"); return })
	e(func() (err error) { m.Subgraphs, err = tables(t, 3, "subgraph_metadata", parseSubgraph); return })
	e(func() (err error) { m.Author, err = t.str(4, "author"); return })
	e(func() (err error) { m.License, err = t.str(5, "license"); return })
	e(func() (err error) { m.AssociatedFiles, err = tables(t, 6, "associated_files", parseFile); return })
	e(func() (err error) { m.MinParserVersion, err = t.str(7, "min_parser_version"); return })
	if err != nil {
		return nil, err
	}
	return m, nil
}

func parseSubgraph(t table) (SubgraphMetadata, error) {
	var s SubgraphMetadata
	var err error
	e := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	e(func() (err error) { s.Name, err = t.str(0, "name"); return })
	e(func() (err error) { s.Description, err = t.str(1, "description"); return })
	e(func() (err error) { s.Inputs, err = tables(t, 2, "input_tensor_metadata", parseTensor); return })
	e(func() (err error) { s.Outputs, err = tables(t, 3, "output_tensor_metadata", parseTensor); return })
	e(func() (err error) { s.AssociatedFiles, err = tables(t, 4, "associated_files", parseFile); return })
	e(func() (err error) {
		s.InputProcessUnits, err = tables(t, 5, "input_process_units", parseProcessUnit)
		return
	})
	e(func() (err error) {
		s.OutputProcessUnits, err = tables(t, 6, "output_process_units", parseProcessUnit)
		return
	})
	e(func() (err error) { s.InputTensorGroups, err = tables(t, 7, "input_tensor_groups", parseGroup); return })
	e(func() (err error) {
		s.OutputTensorGroups, err = tables(t, 8, "output_tensor_groups", parseGroup)
		return
	})
	e(func() (err error) { s.CustomMetadata, err = tables(t, 9, "custom_metadata", parseCustom); return })
	return s, err
}

func parseTensor(t table) (TensorMetadata, error) {
	var m TensorMetadata
	var err error
	e := func(f func() error) {
		if err == nil {
			err = f()
		}
	}
	e(func() (err error) { m.Name, err = t.str(0, "name"); return })
	e(func() (err error) { m.Description, err = t.str(1, "description"); return })
	e(func() (err error) { m.DimensionNames, err = t.strings(2, "dimension_names"); return })
	e(func() error {
		c, ok, err := t.child(3, "content")
		if ok {
			m.Content, err = parseContent(c)
		}
		return err
	})
	e(func() (err error) { m.ProcessUnits, err = tables(t, 4, "process_units", parseProcessUnit); return })
	e(func() error {
		c, ok, err := t.child(5, "stats")
		if ok {
			m.Stats = &Stats{}
			if m.Stats.Max, err = c.floats(0, "max"); err == nil {
				m.Stats.Min, err = c.floats(1, "min")
			}
		}
		return err
	})
	e(func() (err error) { m.AssociatedFiles, err = tables(t, 6, "associated_files", parseFile); return })
	return m, err
}

func parseContent(t table) (*Content, error) {
	c := &Content{}
	kind, err := t.u8(0, "content_properties_type")
	if err != nil {
		return nil, err
	}
	c.Kind = ContentKind(kind)
	p, ok, err := t.child(1, "content_properties")
	if err != nil {
		return nil, err
	}
	if ok {
		switch c.Kind {
		case ContentImage:
			c.Image = &ImageProperties{}
			cs, err := p.u8(0, "color_space")
			if err != nil {
				return nil, err
			}
			c.Image.ColorSpace = ColorSpace(cs)
			size, ok, err := p.child(1, "default_size")
			if err != nil {
				return nil, err
			}
			if ok {
				c.Image.DefaultSize = &ImageSize{}
				if c.Image.DefaultSize.Width, err = size.u32(0, "width"); err != nil {
					return nil, err
				}
				if c.Image.DefaultSize.Height, err = size.u32(1, "height"); err != nil {
					return nil, err
				}
			}
		case ContentBoundingBox:
			b := &BoundingBoxProperties{}
			if b.Index, err = p.uints(0, "index"); err != nil {
				return nil, err
			}
			typ, err := p.u8(1, "type")
			if err != nil {
				return nil, err
			}
			coord, err := p.u8(2, "coordinate_type")
			if err != nil {
				return nil, err
			}
			b.Type, b.CoordinateType = BoundingBoxType(typ), CoordinateType(coord)
			c.BoundingBox = b
		case ContentAudio:
			a := &AudioProperties{}
			if a.SampleRate, err = p.u32(0, "sample_rate"); err != nil {
				return nil, err
			}
			if a.Channels, err = p.u32(1, "channels"); err != nil {
				return nil, err
			}
			c.Audio = a
		}
	}
	r, ok, err := t.child(2, "range")
	if err != nil {
		return nil, err
	}
	if ok {
		c.Range = &ValueRange{}
		if c.Range.Min, err = r.i32(0, "min"); err != nil {
			return nil, err
		}
		if c.Range.Max, err = r.i32(1, "max"); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func parseProcessUnit(t table) (ProcessUnit, error) {
	var u ProcessUnit
	typ, err := t.u8(0, "options_type")
	if err != nil {
		return u, err
	}
	u.Type = ProcessUnitType(typ)
	o, ok, err := t.child(1, "options")
	if err != nil || !ok {
		return u, err
	}
	switch u.Type {
	case ProcessUnitNormalization:
		n := &NormalizationOptions{}
		if n.Mean, err = o.floats(0, "mean"); err == nil {
			n.Std, err = o.floats(1, "std")
		}
		u.Normalization = n
	case ProcessUnitScoreCalibration:
		s := &ScoreCalibrationOptions{}
		var tr uint8
		if tr, err = o.u8(0, "score_transformation"); err == nil {
			s.Transformation = ScoreTransformation(tr)
			s.DefaultScore, err = o.f32(1, "default_score")
		}
		u.ScoreCalibration = s
	case ProcessUnitScoreThresholding:
		s := &ScoreThresholdingOptions{}
		s.GlobalScoreThreshold, err = o.f32(0, "global_score_threshold")
		u.ScoreThresholding = s
	case ProcessUnitBertTokenizer:
		b := &BertTokenizerOptions{}
		b.VocabFile, err = tables(o, 0, "vocab_file", parseFile)
		u.BertTokenizer = b
	case ProcessUnitSentencePieceTokenizer:
		s := &SentencePieceTokenizerOptions{}
		if s.SentencePieceModel, err = tables(o, 0, "sentencePiece_model", parseFile); err == nil {
			s.VocabFile, err = tables(o, 1, "vocab_file", parseFile)
		}
		u.SentencePieceTokenizer = s
	case ProcessUnitRegexTokenizer:
		r := &RegexTokenizerOptions{}
		if r.DelimRegexPattern, err = o.str(0, "delim_regex_pattern"); err == nil {
			r.VocabFile, err = tables(o, 1, "vocab_file", parseFile)
		}
		u.RegexTokenizer = r
	}
	return u, err
}

func parseFile(t table) (AssociatedFile, error) {
	var f AssociatedFile
	var err error
	e := func(fn func() error) {
		if err == nil {
			err = fn()
		}
	}
	e(func() (err error) { f.Name, err = t.str(0, "name"); return })
	e(func() (err error) { f.Description, err = t.str(1, "description"); return })
	e(func() error { typ, err := t.u8(2, "type"); f.Type = FileType(typ); return err })
	e(func() (err error) { f.Locale, err = t.str(3, "locale"); return })
	e(func() (err error) { f.Version, err = t.str(4, "version"); return })
	return f, err
}

func parseGroup(t table) (TensorGroup, error) {
	var g TensorGroup
	var err error
	if g.Name, err = t.str(0, "name"); err == nil {
		g.TensorNames, err = t.strings(1, "tensor_names")
	}
	return g, err
}

func parseCustom(t table) (CustomMetadata, error) {
	var c CustomMetadata
	var err error
	if c.Name, err = t.str(0, "name"); err == nil {
		c.Data, err = t.bytes(1, "data")
	}
	return c, err
}
