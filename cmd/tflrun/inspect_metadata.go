package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tflrun/tflrun/metadata"
)

// writeTFLiteMetadata prints the TensorFlow Lite Metadata section of
// `tflrun inspect`: the model's description, each subgraph's inputs and
// outputs with their content, processing and associated files, and the
// files in the model's zip archive.
func writeTFLiteMetadata(w io.Writer, md *metadata.ModelMetadata, files []inspectFile, errText string) {
	fmt.Fprintf(w, "\nTensorFlow Lite metadata:\n")
	if errText != "" {
		fmt.Fprintf(w, "  error: %s\n", errText)
	}
	if md == nil {
		return
	}
	field := func(indent, name, v string) {
		if v != "" {
			fmt.Fprintf(w, "%s%s: %s\n", indent, name, strings.ReplaceAll(strings.TrimSpace(v), "\n", "\n"+indent+"  "))
		}
	}
	field("  ", "name", md.Name)
	field("  ", "description", md.Description)
	field("  ", "version", md.Version)
	field("  ", "author", md.Author)
	field("  ", "license", md.License)
	field("  ", "min parser version", md.MinParserVersion)
	writeFiles(w, "  ", md.AssociatedFiles)
	for si, sg := range md.Subgraphs {
		fmt.Fprintf(w, "  subgraph %d", si)
		if sg.Name != "" {
			fmt.Fprintf(w, " %q", sg.Name)
		}
		fmt.Fprintln(w)
		field("    ", "description", sg.Description)
		for _, part := range []struct {
			title string
			ts    []metadata.TensorMetadata
		}{{"input", sg.Inputs}, {"output", sg.Outputs}} {
			for i, t := range part.ts {
				fmt.Fprintf(w, "    %s %d %q", part.title, i, t.Name)
				if c := t.Content; c != nil {
					fmt.Fprintf(w, ": %s", contentText(c))
				}
				fmt.Fprintln(w)
				field("      ", "description", t.Description)
				if len(t.DimensionNames) > 0 {
					fmt.Fprintf(w, "      dimensions: %s\n", strings.Join(t.DimensionNames, ", "))
				}
				writeProcessUnits(w, "      ", t.ProcessUnits)
				if s := t.Stats; s != nil && (len(s.Min) > 0 || len(s.Max) > 0) {
					fmt.Fprintf(w, "      stats: min %v max %v\n", s.Min, s.Max)
				}
				writeFiles(w, "      ", t.AssociatedFiles)
			}
		}
		if len(sg.InputProcessUnits) > 0 {
			fmt.Fprintf(w, "    input process units:\n")
			writeProcessUnits(w, "      ", sg.InputProcessUnits)
		}
		if len(sg.OutputProcessUnits) > 0 {
			fmt.Fprintf(w, "    output process units:\n")
			writeProcessUnits(w, "      ", sg.OutputProcessUnits)
		}
		for _, g := range sg.InputTensorGroups {
			fmt.Fprintf(w, "    input group %q: %s\n", g.Name, strings.Join(g.TensorNames, ", "))
		}
		for _, g := range sg.OutputTensorGroups {
			fmt.Fprintf(w, "    output group %q: %s\n", g.Name, strings.Join(g.TensorNames, ", "))
		}
		for _, c := range sg.CustomMetadata {
			fmt.Fprintf(w, "    custom metadata %q (%d bytes)\n", c.Name, len(c.Data))
		}
		writeFiles(w, "    ", sg.AssociatedFiles)
	}
	if len(files) > 0 {
		fmt.Fprintf(w, "  files zipped onto the model:\n")
		for _, f := range files {
			fmt.Fprintf(w, "    %s (%d bytes)\n", f.Name, f.Bytes)
		}
	}
}

// contentText describes a tensor's content in a few words.
func contentText(c *metadata.Content) string {
	s := c.Kind.String()
	switch {
	case c.Image != nil:
		s += " " + c.Image.ColorSpace.String()
		if d := c.Image.DefaultSize; d != nil {
			s += fmt.Sprintf(", default size %dx%d", d.Width, d.Height)
		}
	case c.BoundingBox != nil:
		b := c.BoundingBox
		s += fmt.Sprintf(" %s, %s coordinates", b.Type, b.CoordinateType)
		if len(b.Index) > 0 {
			s += fmt.Sprintf(", order %v", b.Index)
		}
	case c.Audio != nil:
		s += fmt.Sprintf(" %d Hz, %d channel(s)", c.Audio.SampleRate, c.Audio.Channels)
	}
	if c.Range != nil {
		s += fmt.Sprintf(", dimensions %d..%d", c.Range.Min, c.Range.Max)
	}
	return s
}

func writeProcessUnits(w io.Writer, indent string, us []metadata.ProcessUnit) {
	for _, u := range us {
		switch {
		case u.Normalization != nil:
			fmt.Fprintf(w, "%snormalization: mean %v std %v\n", indent, u.Normalization.Mean, u.Normalization.Std)
		case u.ScoreCalibration != nil:
			fmt.Fprintf(w, "%sscore calibration: %s transformation, default score %v\n", indent, u.ScoreCalibration.Transformation, u.ScoreCalibration.DefaultScore)
		case u.ScoreThresholding != nil:
			fmt.Fprintf(w, "%sscore threshold: %v\n", indent, u.ScoreThresholding.GlobalScoreThreshold)
		case u.BertTokenizer != nil:
			fmt.Fprintf(w, "%sBERT tokenizer, vocabulary %s\n", indent, fileNames(u.BertTokenizer.VocabFile))
		case u.SentencePieceTokenizer != nil:
			fmt.Fprintf(w, "%sSentencePiece tokenizer, model %s, vocabulary %s\n", indent, fileNames(u.SentencePieceTokenizer.SentencePieceModel), fileNames(u.SentencePieceTokenizer.VocabFile))
		case u.RegexTokenizer != nil:
			fmt.Fprintf(w, "%sregex tokenizer, delimiter %q, vocabulary %s\n", indent, u.RegexTokenizer.DelimRegexPattern, fileNames(u.RegexTokenizer.VocabFile))
		default:
			fmt.Fprintf(w, "%s%s process unit\n", indent, u.Type)
		}
	}
}

func fileNames(fs []metadata.AssociatedFile) string {
	if len(fs) == 0 {
		return "(none)"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

func writeFiles(w io.Writer, indent string, fs []metadata.AssociatedFile) {
	for _, f := range fs {
		fmt.Fprintf(w, "%sfile %s (%s", indent, f.Name, f.Type)
		if f.Locale != "" {
			fmt.Fprintf(w, ", locale %s", f.Locale)
		}
		if f.Version != "" {
			fmt.Fprintf(w, ", version %s", f.Version)
		}
		fmt.Fprintf(w, ")")
		if f.Description != "" {
			fmt.Fprintf(w, ": %s", strings.TrimSpace(f.Description))
		}
		fmt.Fprintln(w)
	}
}
