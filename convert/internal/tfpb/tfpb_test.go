package tfpb

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestGeneratedUpToDate regenerates the Go code from the .proto files
// with the go:generate command and compares it with the committed files.
// It needs protoc and protoc-gen-go v1.36.12 on PATH and is skipped
// otherwise.
func TestGeneratedUpToDate(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc not on PATH")
	}
	gen, err := exec.LookPath("protoc-gen-go")
	if err != nil {
		home, _ := os.UserHomeDir()
		gen = filepath.Join(home, "go", "bin", "protoc-gen-go")
		if _, err := os.Stat(gen); err != nil {
			t.Skip("protoc-gen-go not on PATH (go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12)")
		}
	}
	v, err := exec.Command(gen, "--version").Output()
	if err != nil || !strings.Contains(string(v), "v1.36.12") {
		t.Skipf("protoc-gen-go version %q is not v1.36.12, the one the committed code comes from", strings.TrimSpace(string(v)))
	}
	pv, _ := exec.Command(protoc, "--version").Output()
	if !strings.Contains(string(pv), "3.21.12") {
		t.Skipf("protoc version %q is not 3.21.12, the one the committed code comes from", strings.TrimSpace(string(pv)))
	}
	dir := t.TempDir()
	files, err := filepath.Glob("proto/tflrun/tensorflow/*.proto")
	if err != nil || len(files) == 0 {
		t.Fatalf("no .proto files: %v", err)
	}
	args := append([]string{"-I", "proto", "--plugin=protoc-gen-go=" + gen, "--go_out=" + dir,
		"--go_opt=module=github.com/tflrun/tflrun/convert/internal/tfpb"}, files...)
	if msg, err := exec.Command(protoc, args...).CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, msg)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".proto") + ".pb.go"
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, want) {
			t.Errorf("%s is stale: run `go generate ./convert/internal/tfpb` and commit the result", name)
		}
	}
}

// TestFieldNumbers pins the field numbers the converter depends on to
// TensorFlow's (a wrong number would silently read nothing).
func TestFieldNumbers(t *testing.T) {
	cases := []struct {
		msg    proto.Message
		fields map[string]protoreflect.FieldNumber
	}{
		{&SavedModel{}, map[string]protoreflect.FieldNumber{"saved_model_schema_version": 1, "meta_graphs": 2}},
		{&MetaGraphDef{}, map[string]protoreflect.FieldNumber{"meta_info_def": 1, "graph_def": 2, "saver_def": 3,
			"collection_def": 4, "signature_def": 5, "asset_file_def": 6, "object_graph_def": 7}},
		{&MetaGraphDef_MetaInfoDef{}, map[string]protoreflect.FieldNumber{"stripped_op_list": 2, "tags": 4, "tensorflow_version": 5}},
		{&SaverDef{}, map[string]protoreflect.FieldNumber{"filename_tensor_name": 1, "restore_op_name": 3, "version": 7}},
		{&SignatureDef{}, map[string]protoreflect.FieldNumber{"inputs": 1, "outputs": 2, "method_name": 3}},
		{&TensorInfo{}, map[string]protoreflect.FieldNumber{"name": 1, "dtype": 2, "tensor_shape": 3}},
		{&GraphDef{}, map[string]protoreflect.FieldNumber{"node": 1, "library": 2, "versions": 4}},
		{&NodeDef{}, map[string]protoreflect.FieldNumber{"name": 1, "op": 2, "input": 3, "device": 4, "attr": 5}},
		{&FunctionDef{}, map[string]protoreflect.FieldNumber{"signature": 1, "node_def": 3, "ret": 4, "attr": 5,
			"control_ret": 6, "arg_attr": 7, "resource_arg_unique_id": 8}},
		{&OpDef{}, map[string]protoreflect.FieldNumber{"name": 1, "input_arg": 2, "output_arg": 3, "attr": 4, "control_output": 20}},
		{&OpDef_ArgDef{}, map[string]protoreflect.FieldNumber{"type": 3, "type_attr": 4, "number_attr": 5, "type_list_attr": 6}},
		{&AttrValue{}, map[string]protoreflect.FieldNumber{"list": 1, "s": 2, "i": 3, "f": 4, "b": 5, "type": 6,
			"shape": 7, "tensor": 8, "placeholder": 9, "func": 10}},
		{&TensorProto{}, map[string]protoreflect.FieldNumber{"dtype": 1, "tensor_shape": 2, "tensor_content": 4,
			"float_val": 5, "double_val": 6, "int_val": 7, "string_val": 8, "int64_val": 10, "bool_val": 11, "half_val": 13}},
		{&TensorShapeProto{}, map[string]protoreflect.FieldNumber{"dim": 2, "unknown_rank": 3}},
		{&SavedObject{}, map[string]protoreflect.FieldNumber{"children": 1, "user_object": 4, "function": 6, "variable": 7,
			"bare_concrete_function": 8, "resource": 10, "saveable_objects": 11}},
		{&SavedConcreteFunction{}, map[string]protoreflect.FieldNumber{"bound_inputs": 2, "canonicalized_input_signature": 3, "output_signature": 4}},
		{&TrackableObjectGraph_TrackableObject{}, map[string]protoreflect.FieldNumber{"children": 1, "attributes": 2, "slot_variables": 3}},
		{&TrackableObjectGraph_TrackableObject_SerializedTensor{}, map[string]protoreflect.FieldNumber{"name": 1, "full_name": 2, "checkpoint_key": 3}},
		{&StructuredValue{}, map[string]protoreflect.FieldNumber{"none_value": 1, "string_value": 13, "tensor_spec_value": 33,
			"list_value": 51, "tuple_value": 52, "dict_value": 53}},
		{&BundleHeaderProto{}, map[string]protoreflect.FieldNumber{"num_shards": 1, "endianness": 2, "version": 3}},
		{&BundleEntryProto{}, map[string]protoreflect.FieldNumber{"dtype": 1, "shape": 2, "shard_id": 3, "offset": 4,
			"size": 5, "crc32c": 6, "slices": 7}},
	}
	for _, c := range cases {
		md := c.msg.ProtoReflect().Descriptor()
		for name, num := range c.fields {
			fd := md.Fields().ByName(protoreflect.Name(name))
			if fd == nil {
				t.Errorf("%s has no field %s", md.FullName(), name)
				continue
			}
			if fd.Number() != num {
				t.Errorf("%s.%s is field %d, TensorFlow uses %d", md.FullName(), name, fd.Number(), num)
			}
		}
	}
	if DataType_DT_FLOAT != 1 || DataType_DT_INT32 != 3 || DataType_DT_STRING != 7 || DataType_DT_RESOURCE != 20 || DataType_DT_HALF != 19 || DataType_DT_FLOAT_REF != 101 {
		t.Error("DataType numbering differs from TensorFlow's")
	}
}
