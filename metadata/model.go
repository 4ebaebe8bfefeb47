package metadata

import (
	"archive/zip"
	"bytes"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tflrun/tflrun/schema"
)

// Model is what FromModel finds in a model file.
type Model struct {
	// Metadata is the decoded TFLITE_METADATA buffer, nil when the model
	// has none.
	Metadata *ModelMetadata
	// Files is the archive of associated files, nil when the model has
	// none.
	Files *Archive
}

// FromModel reads the metadata and associated files of the .tflite model
// held in b (the whole file). The model flatbuffer is verified first
// (schema.VerifyModel); a model without metadata yields a Model whose
// fields are nil and no error. The Model keeps b for ReadFile.
func FromModel(b []byte) (*Model, error) {
	if err := schema.VerifyModel(b); err != nil {
		return nil, fmt.Errorf("metadata: the model: %w", err)
	}
	data, err := metadataBuffer(b)
	if err != nil {
		return nil, err
	}
	m := &Model{}
	if data != nil {
		if m.Metadata, err = Parse(data); err != nil {
			return nil, err
		}
	}
	if m.Files, err = OpenArchive(bytes.NewReader(b), int64(len(b))); err != nil {
		return nil, err
	}
	return m, nil
}

// MetadataBuffer returns the contents of the model's TFLITE_METADATA
// buffer (nil when it has none) from a model b that schema.VerifyModel
// accepts.
func MetadataBuffer(b []byte) ([]byte, error) {
	if err := schema.VerifyModel(b); err != nil {
		return nil, fmt.Errorf("metadata: the model: %w", err)
	}
	return metadataBuffer(b)
}

// metadataBuffer is MetadataBuffer on a verified model.
func metadataBuffer(b []byte) ([]byte, error) {
	root := schema.GetRootAsModel(b, 0)
	var md schema.Metadata
	for i := 0; i < root.MetadataLength(); i++ {
		root.Metadata(&md, i)
		if string(md.Name()) != BufferName {
			continue
		}
		idx := int(md.Buffer())
		if idx >= root.BuffersLength() {
			return nil, fmt.Errorf("metadata: model metadata %d %q names buffer %d, but the model has %d", i, BufferName, idx, root.BuffersLength())
		}
		var buf schema.Buffer
		root.Buffers(&buf, idx)
		if off, n := buf.Offset(), buf.Size(); off > 1 {
			// VerifyModel checked that the range lies in b.
			return b[off : off+n], nil
		}
		return buf.DataBytes(), nil
	}
	return nil, nil
}

// Tensor returns the metadata of input (output false) or output tensor
// i of subgraph sg, or nil when the metadata does not describe it.
func (m *Model) Tensor(sg int, output bool, i int) *TensorMetadata {
	if m == nil || m.Metadata == nil || sg < 0 || sg >= len(m.Metadata.Subgraphs) {
		return nil
	}
	list := m.Metadata.Subgraphs[sg].Inputs
	if output {
		list = m.Metadata.Subgraphs[sg].Outputs
	}
	if i < 0 || i >= len(list) {
		return nil
	}
	return &list[i]
}

// Labels returns the labels of output i of subgraph sg: the first
// TENSOR_AXIS_LABELS file associated with the output (TensorFlow Lite
// uses the first unless asked for a locale), read from the archive and
// split by ParseLabels. It returns nil and no error when the output has
// no such file; an error when the file is named but cannot be read.
func (m *Model) Labels(sg, i int) ([]string, error) {
	t := m.Tensor(sg, true, i)
	if t == nil {
		return nil, nil
	}
	for _, f := range t.AssociatedFiles {
		if f.Type != FileTensorAxisLabels {
			continue
		}
		if m.Files == nil {
			return nil, fmt.Errorf("metadata: output %d names the label file %q, but the model has no associated files archive", i, f.Name)
		}
		data, err := m.Files.ReadFile(f.Name)
		if err != nil {
			return nil, err
		}
		return ParseLabels(data), nil
	}
	return nil, nil
}

// File is an associated file to zip onto a model.
type File struct {
	Name string
	Data []byte
}

// Populate returns model with md as its TFLITE_METADATA buffer (replacing
// any there) and files zipped onto its end (replacing any archive there),
// as tflite-support's MetadataPopulator writes them: the zip's entries are
// stored uncompressed and its offsets count from the start of the file.
// The model is rewritten through schema's object API, so fields this
// project's schema does not know are dropped, and models that keep buffer
// data outside the flatbuffer (files over 2 GB) are refused.
func Populate(model []byte, md *ModelMetadata, files []File) ([]byte, error) {
	if err := schema.VerifyModel(model); err != nil {
		return nil, fmt.Errorf("metadata: the model: %w", err)
	}
	m := schema.GetRootAsModel(model, 0).UnPack()
	for i, b := range m.Buffers {
		if b != nil && b.Offset > 1 {
			return nil, fmt.Errorf("metadata: buffer %d lies outside the flatbuffer (a model over 2 GB); Populate cannot rewrite it", i)
		}
	}
	kept := m.Metadata[:0]
	for _, e := range m.Metadata {
		if e.Name != BufferName {
			kept = append(kept, e)
		}
	}
	m.Buffers = append(m.Buffers, &schema.BufferT{Data: md.Marshal()})
	m.Metadata = append(kept, &schema.MetadataT{Name: BufferName, Buffer: uint32(len(m.Buffers) - 1)})
	b := flatbuffers.NewBuilder(len(model) + 1024)
	b.FinishWithFileIdentifier(m.Pack(b), []byte(schema.ModelIdentifier))
	var out bytes.Buffer
	out.Write(b.FinishedBytes())
	if len(files) == 0 {
		return out.Bytes(), nil
	}
	zw := zip.NewWriter(&out)
	zw.SetOffset(int64(out.Len()))
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Store})
		if err != nil {
			return nil, fmt.Errorf("metadata: associated file %q: %w", f.Name, err)
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
