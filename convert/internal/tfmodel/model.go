// Package tfmodel reads TensorFlow models for tflrun's converter: a
// SavedModel directory (saved_model.pb plus the variables/ TensorBundle
// checkpoint), a frozen GraphDef (.pb) or a text GraphDef (.pbtxt). It
// resolves the resource variables a signature reads to their checkpoint
// values, and cuts the graph to one entry point (a signature, or named
// input/output arrays), producing the IR (package ir) the converter's
// passes work on.
//
// Everything read is untrusted: sizes are bounded, every reference is
// checked, and errors name the file, the entry and what is wrong.
package tfmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	// The op records (ir.OpRecord) the importer reads outputs from, for
	// graphs whose op list leaves ops out.
	_ "github.com/tflrun/tflrun/convert/internal/tfops"
)

// maxGraphBytes bounds saved_model.pb and GraphDef files (protobuf
// messages are limited to 2 GiB anyway).
const maxGraphBytes = 1 << 30

// Model is a TensorFlow model read from disk.
type Model struct {
	// Path is the SavedModel directory or the GraphDef file.
	Path string
	// SavedModel and MetaGraph are nil for a GraphDef.
	SavedModel *tfpb.SavedModel
	MetaGraph  *tfpb.MetaGraphDef
	// Graph is the main graph (MetaGraph.GraphDef for a SavedModel).
	Graph *tfpb.GraphDef
	// Module holds the function library and op definitions.
	Module *ir.Module
	// Bundle is the variables checkpoint (nil when the SavedModel has
	// none, and for a GraphDef).
	Bundle *Bundle

	varKeys    map[string]string // VarHandleOp/VariableV2 node → checkpoint key
	varKeysErr error
	// restoreErrs are the restore functions restoreGraphKeys could not
	// read: skipped, since inference never calls them, and named only
	// when a variable the entry needs has no key.
	restoreErrs []error
	varSources  map[string]string // how each key was found ("object graph", "restore graph")
	// root is the __call__ entry added to Graph (rootCall), once.
	root *rootEntry
}

// IsSavedModel reports whether m came from a SavedModel directory.
func (m *Model) IsSavedModel() bool { return m.SavedModel != nil }

// Load reads a SavedModel directory, a text GraphDef (.pbtxt, .pbtext,
// .txt) or a binary GraphDef (any other file).
func Load(path string) (*Model, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return LoadSavedModel(path)
	}
	return LoadGraphDef(path)
}

// LoadSavedModel reads DIR/saved_model.pb, picks the meta graph tagged
// "serve" (or the only one), and opens DIR/variables/variables when the
// variables directory has an index. A truncated or corrupt saved_model.pb,
// a missing or mismatching variables shard, or an unreadable index give
// errors naming the file.
func LoadSavedModel(dir string) (*Model, error) {
	pbPath := filepath.Join(dir, "saved_model.pb")
	data, err := readFileLimited(pbPath, maxGraphBytes)
	if err != nil {
		if os.IsNotExist(err) {
			if _, txtErr := os.Stat(filepath.Join(dir, "saved_model.pbtxt")); txtErr == nil {
				return nil, fmt.Errorf("%s: only binary saved_model.pb is supported, found saved_model.pbtxt", dir)
			}
			return nil, notSavedModelError(dir)
		}
		return nil, err
	}
	m, err := parseSavedModel(pbPath, data)
	if err != nil {
		return nil, err
	}
	m.Path = dir
	prefix := filepath.Join(dir, "variables", "variables")
	if _, err := os.Stat(prefix + ".index"); err == nil {
		if m.Bundle, err = OpenBundle(prefix); err != nil {
			return nil, err
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	return m, nil
}

// notSavedModelError explains a directory without saved_model.pb, naming
// the SavedModel directories one level below it (a model archive often
// unpacks to a folder holding the SavedModel folder).
func notSavedModelError(dir string) error {
	var found []string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if _, err := os.Stat(filepath.Join(sub, "saved_model.pb")); err == nil {
				found = append(found, sub)
			}
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("%s: not a SavedModel directory (no saved_model.pb); SavedModel found in %s", dir, strings.Join(found, ", "))
	}
	return fmt.Errorf("%s: not a SavedModel directory (no saved_model.pb)", dir)
}

// ParseSavedModel decodes the bytes of a saved_model.pb (name is used in
// messages). The result has no checkpoint attached.
func ParseSavedModel(name string, data []byte) (*Model, error) {
	return parseSavedModel(name, data)
}

func parseSavedModel(name string, data []byte) (*Model, error) {
	sm := &tfpb.SavedModel{}
	if err := proto.Unmarshal(data, sm); err != nil {
		return nil, fmt.Errorf("%s: not a valid SavedModel protobuf (truncated or corrupt?): %v", name, err)
	}
	if len(sm.MetaGraphs) == 0 {
		return nil, fmt.Errorf("%s: SavedModel has no meta graphs (truncated or empty file?)", name)
	}
	mg := sm.MetaGraphs[0]
	if len(sm.MetaGraphs) > 1 {
		mg = nil
		for _, g := range sm.MetaGraphs {
			for _, t := range g.GetMetaInfoDef().GetTags() {
				if t == "serve" && mg == nil {
					mg = g
				}
			}
		}
		if mg == nil {
			return nil, fmt.Errorf("%s: %d meta graphs and none is tagged \"serve\"", name, len(sm.MetaGraphs))
		}
	}
	if mg.GraphDef == nil {
		return nil, fmt.Errorf("%s: the meta graph has no graph", name)
	}
	m := &Model{Path: name, SavedModel: sm, MetaGraph: mg, Graph: mg.GraphDef}
	m.Module = ir.NewModule(mg.GraphDef.Library, mg.GetMetaInfoDef().GetStrippedOpList())
	return m, nil
}

// LoadGraphDef reads a frozen GraphDef: text format when the name ends in
// .pbtxt, .pbtext or .txt, binary otherwise.
func LoadGraphDef(path string) (*Model, error) {
	data, err := readFileLimited(path, maxGraphBytes)
	if err != nil {
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(path))
	text := ext == ".pbtxt" || ext == ".pbtext" || ext == ".txt"
	return ParseGraphDef(path, data, text)
}

// ParseGraphDef decodes a GraphDef, binary or text (name is used in
// messages).
func ParseGraphDef(name string, data []byte, text bool) (*Model, error) {
	g := &tfpb.GraphDef{}
	if text {
		// Fields newer than tflrun's copy of graph.proto (a node's
		// experimental_debug_info, which TensorFlow's own test graphs
		// carry) are skipped, as the binary decoder skips them.
		if err := (prototext.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, g); err != nil {
			return nil, fmt.Errorf("%s: not a valid text GraphDef: %v", name, err)
		}
	} else if err := proto.Unmarshal(data, g); err != nil {
		return nil, fmt.Errorf("%s: not a valid binary GraphDef (truncated or corrupt?): %v", name, err)
	}
	if len(g.Node) == 0 {
		return nil, fmt.Errorf("%s: the GraphDef has no nodes", name)
	}
	return &Model{Path: name, Graph: g, Module: ir.NewModule(g.Library, nil)}, nil
}

// Signatures returns the SavedModel's signature keys, sorted, leaving out
// the internal "__saved_model_init_op".
func (m *Model) Signatures() []string {
	var keys []string
	for k := range m.MetaGraph.GetSignatureDef() {
		if k != "__saved_model_init_op" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
