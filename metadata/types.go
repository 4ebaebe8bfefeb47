package metadata

import "fmt"

// BufferName is the name of the model metadata entry that holds the
// ModelMetadata flatbuffer.
const BufferName = "TFLITE_METADATA"

// FileIdentifier is the flatbuffer file identifier of ModelMetadata.
const FileIdentifier = "M001"

// ModelMetadata is the root table: what the model is and how to use it.
type ModelMetadata struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// Version is the model's version as its authors give it.
	Version string `json:"version,omitempty"`
	// Subgraphs describe the model's subgraphs; the first is the main one.
	Subgraphs       []SubgraphMetadata `json:"subgraphs,omitempty"`
	Author          string             `json:"author,omitempty"`
	License         string             `json:"license,omitempty"`
	AssociatedFiles []AssociatedFile   `json:"associated_files,omitempty"`
	// MinParserVersion is the oldest metadata parser that understands
	// every field present ("1.0.0", ...).
	MinParserVersion string `json:"min_parser_version,omitempty"`
}

// SubgraphMetadata describes one subgraph. Inputs and Outputs follow the
// order of the subgraph's inputs and outputs in the model.
type SubgraphMetadata struct {
	Name               string           `json:"name,omitempty"`
	Description        string           `json:"description,omitempty"`
	Inputs             []TensorMetadata `json:"inputs,omitempty"`
	Outputs            []TensorMetadata `json:"outputs,omitempty"`
	AssociatedFiles    []AssociatedFile `json:"associated_files,omitempty"`
	InputProcessUnits  []ProcessUnit    `json:"input_process_units,omitempty"`
	OutputProcessUnits []ProcessUnit    `json:"output_process_units,omitempty"`
	InputTensorGroups  []TensorGroup    `json:"input_tensor_groups,omitempty"`
	OutputTensorGroups []TensorGroup    `json:"output_tensor_groups,omitempty"`
	CustomMetadata     []CustomMetadata `json:"custom_metadata,omitempty"`
}

// TensorMetadata describes one input or output tensor.
type TensorMetadata struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// DimensionNames name the tensor's dimensions, outermost first.
	DimensionNames []string `json:"dimension_names,omitempty"`
	// Content is nil when the metadata gives none.
	Content *Content `json:"content,omitempty"`
	// ProcessUnits are the pre- or post-processing steps for the tensor
	// (normalisation for an input, score calibration for an output, ...).
	ProcessUnits []ProcessUnit `json:"process_units,omitempty"`
	// Stats is nil when the metadata gives none.
	Stats           *Stats           `json:"stats,omitempty"`
	AssociatedFiles []AssociatedFile `json:"associated_files,omitempty"`
}

// Normalization returns the first normalisation unit among the tensor's
// process units, or nil.
func (t *TensorMetadata) Normalization() *NormalizationOptions {
	for _, p := range t.ProcessUnits {
		if p.Normalization != nil {
			return p.Normalization
		}
	}
	return nil
}

// Content says what a tensor holds.
type Content struct {
	// Kind is which of Image, BoundingBox and Audio is set (none for
	// ContentFeature, ContentNone or a kind this package does not know).
	Kind        ContentKind            `json:"kind,omitempty"`
	Image       *ImageProperties       `json:"image,omitempty"`
	BoundingBox *BoundingBoxProperties `json:"bounding_box,omitempty"`
	Audio       *AudioProperties       `json:"audio,omitempty"`
	// Range is the range of dimensions the content spans; nil means all
	// but the batch dimension.
	Range *ValueRange `json:"range,omitempty"`
}

// ContentKind is the type of a Content's properties union.
type ContentKind uint8

// The ContentProperties union's members.
const (
	ContentNone ContentKind = iota
	ContentFeature
	ContentImage
	ContentBoundingBox
	ContentAudio
)

// String returns the name of the ContentKind value.
func (k ContentKind) String() string {
	switch k {
	case ContentNone:
		return "none"
	case ContentFeature:
		return "feature"
	case ContentImage:
		return "image"
	case ContentBoundingBox:
		return "bounding box"
	case ContentAudio:
		return "audio"
	}
	return fmt.Sprintf("content type %d", uint8(k))
}

// ImageProperties describe an image tensor.
type ImageProperties struct {
	ColorSpace ColorSpace `json:"color_space,omitempty"`
	// DefaultSize is the size to use when the tensor's shape is dynamic;
	// nil when not given.
	DefaultSize *ImageSize `json:"default_size,omitempty"`
}

// ImageSize is an image's width and height in pixels.
type ImageSize struct {
	Width  uint32 `json:"width,omitempty"`
	Height uint32 `json:"height,omitempty"`
}

// ColorSpace is an image's colour space.
type ColorSpace int8

// The ColorSpaceType values.
const (
	ColorSpaceUnknown ColorSpace = iota
	ColorSpaceRGB
	ColorSpaceGrayscale
)

// String returns the name of the ColorSpace value.
func (c ColorSpace) String() string {
	switch c {
	case ColorSpaceUnknown:
		return "unknown"
	case ColorSpaceRGB:
		return "RGB"
	case ColorSpaceGrayscale:
		return "grayscale"
	}
	return fmt.Sprintf("colour space %d", int8(c))
}

// BoundingBoxProperties describe a tensor of bounding boxes.
type BoundingBoxProperties struct {
	// Index gives the order of the box's four values (empty: the type's
	// default order).
	Index          []uint32        `json:"index,omitempty"`
	Type           BoundingBoxType `json:"type,omitempty"`
	CoordinateType CoordinateType  `json:"coordinate_type,omitempty"`
}

// BoundingBoxType is how a box is given.
type BoundingBoxType int8

// The BoundingBoxType values.
const (
	BoundingBoxUnknown    BoundingBoxType = iota
	BoundingBoxBoundaries                 // left, top, right, bottom
	BoundingBoxUpperLeft                  // upper-left x, y, width, height
	BoundingBoxCenter                     // centre x, y, width, height
)

// String returns the name of the BoundingBoxType value.
func (b BoundingBoxType) String() string {
	switch b {
	case BoundingBoxUnknown:
		return "unknown"
	case BoundingBoxBoundaries:
		return "boundaries"
	case BoundingBoxUpperLeft:
		return "upper left"
	case BoundingBoxCenter:
		return "center"
	}
	return fmt.Sprintf("bounding box type %d", int8(b))
}

// CoordinateType is the unit of box coordinates.
type CoordinateType int8

// The CoordinateType values.
const (
	CoordinateRatio CoordinateType = iota // 0..1 of the image size
	CoordinatePixel                       // pixels
)

// String returns the name of the CoordinateType value.
func (c CoordinateType) String() string {
	switch c {
	case CoordinateRatio:
		return "ratio"
	case CoordinatePixel:
		return "pixel"
	}
	return fmt.Sprintf("coordinate type %d", int8(c))
}

// AudioProperties describe an audio tensor.
type AudioProperties struct {
	// SampleRate is in samples per second per channel.
	SampleRate uint32 `json:"sample_rate,omitempty"`
	Channels   uint32 `json:"channels,omitempty"`
}

// ValueRange is an inclusive range of dimension indices.
type ValueRange struct {
	Min int32 `json:"min,omitempty"`
	Max int32 `json:"max,omitempty"`
}

// ProcessUnit is one processing step; Type says which option is set (none
// for a type this package does not know).
type ProcessUnit struct {
	Type                   ProcessUnitType                `json:"type,omitempty"`
	Normalization          *NormalizationOptions          `json:"normalization,omitempty"`
	ScoreCalibration       *ScoreCalibrationOptions       `json:"score_calibration,omitempty"`
	ScoreThresholding      *ScoreThresholdingOptions      `json:"score_thresholding,omitempty"`
	BertTokenizer          *BertTokenizerOptions          `json:"bert_tokenizer,omitempty"`
	SentencePieceTokenizer *SentencePieceTokenizerOptions `json:"sentence_piece_tokenizer,omitempty"`
	RegexTokenizer         *RegexTokenizerOptions         `json:"regex_tokenizer,omitempty"`
}

// ProcessUnitType is the type of a ProcessUnit's options union.
type ProcessUnitType uint8

// The ProcessUnitOptions union's members.
const (
	ProcessUnitNone ProcessUnitType = iota
	ProcessUnitNormalization
	ProcessUnitScoreCalibration
	ProcessUnitScoreThresholding
	ProcessUnitBertTokenizer
	ProcessUnitSentencePieceTokenizer
	ProcessUnitRegexTokenizer
)

// String returns the name of the ProcessUnitType value.
func (p ProcessUnitType) String() string {
	switch p {
	case ProcessUnitNone:
		return "none"
	case ProcessUnitNormalization:
		return "normalization"
	case ProcessUnitScoreCalibration:
		return "score calibration"
	case ProcessUnitScoreThresholding:
		return "score thresholding"
	case ProcessUnitBertTokenizer:
		return "BERT tokenizer"
	case ProcessUnitSentencePieceTokenizer:
		return "SentencePiece tokenizer"
	case ProcessUnitRegexTokenizer:
		return "regex tokenizer"
	}
	return fmt.Sprintf("process unit type %d", uint8(p))
}

// NormalizationOptions map a value x to (x - Mean[c]) / Std[c] per
// channel c; a single value applies to every channel.
type NormalizationOptions struct {
	Mean []float32 `json:"mean,omitempty"`
	Std  []float32 `json:"std,omitempty"`
}

// ScoreCalibrationOptions are the parameters of sigmoid score
// calibration (the per-class values are in a
// TENSOR_AXIS_SCORE_CALIBRATION associated file).
type ScoreCalibrationOptions struct {
	Transformation ScoreTransformation `json:"transformation,omitempty"`
	DefaultScore   float32             `json:"default_score,omitempty"`
}

// ScoreTransformation is applied to a score before calibration.
type ScoreTransformation int8

// The ScoreTransformationType values.
const (
	ScoreIdentity        ScoreTransformation = iota // g(x) = x
	ScoreLog                                        // g(x) = log(x)
	ScoreInverseLogistic                            // g(x) = log(x) - log(1-x)
)

// String returns the name of the ScoreTransformation value.
func (s ScoreTransformation) String() string {
	switch s {
	case ScoreIdentity:
		return "identity"
	case ScoreLog:
		return "log"
	case ScoreInverseLogistic:
		return "inverse logistic"
	}
	return fmt.Sprintf("score transformation %d", int8(s))
}

// ScoreThresholdingOptions give the score below which results are
// considered low-confidence.
type ScoreThresholdingOptions struct {
	GlobalScoreThreshold float32 `json:"global_score_threshold,omitempty"`
}

// BertTokenizerOptions name the vocabulary of a BERT tokenizer.
type BertTokenizerOptions struct {
	VocabFile []AssociatedFile `json:"vocab_file,omitempty"`
}

// SentencePieceTokenizerOptions name a SentencePiece model and
// vocabulary.
type SentencePieceTokenizerOptions struct {
	SentencePieceModel []AssociatedFile `json:"sentence_piece_model,omitempty"`
	VocabFile          []AssociatedFile `json:"vocab_file,omitempty"`
}

// RegexTokenizerOptions split text by a delimiter pattern and map tokens
// through a vocabulary.
type RegexTokenizerOptions struct {
	DelimRegexPattern string           `json:"delim_regex_pattern,omitempty"`
	VocabFile         []AssociatedFile `json:"vocab_file,omitempty"`
}

// Stats are per-channel minimum and maximum values of a tensor.
type Stats struct {
	Max []float32 `json:"max,omitempty"`
	Min []float32 `json:"min,omitempty"`
}

// TensorGroup groups tensors (by TensorMetadata.Name) that belong
// together, like the boxes, classes and scores of a detector.
type TensorGroup struct {
	Name        string   `json:"name,omitempty"`
	TensorNames []string `json:"tensor_names,omitempty"`
}

// CustomMetadata is an application's own named data.
type CustomMetadata struct {
	Name string `json:"name,omitempty"`
	Data []byte `json:"data,omitempty"`
}

// AssociatedFile names a file zipped onto the model and says what it is.
type AssociatedFile struct {
	// Name is the file's name in the zip archive.
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Type        FileType `json:"type,omitempty"`
	// Locale distinguishes files of the same type in several languages
	// (an ISO 639-1 code such as "en", optionally with a region).
	Locale  string `json:"locale,omitempty"`
	Version string `json:"version,omitempty"`
}

// FileType is an associated file's AssociatedFileType.
type FileType int8

// The AssociatedFileType values.
const (
	FileUnknown FileType = iota
	// FileDescriptions is free text such as a readme.
	FileDescriptions
	// FileTensorAxisLabels has one label per line for the positions along
	// the tensor's last axis (the classes of a classifier's scores).
	FileTensorAxisLabels
	// FileTensorValueLabels has one label per line for the values the
	// tensor holds (the class ids a detector outputs).
	FileTensorValueLabels
	// FileTensorAxisScoreCalibration has per-class sigmoid parameters.
	FileTensorAxisScoreCalibration
	// FileVocabulary has one token per line.
	FileVocabulary
	// FileScannIndex is a ScaNN index for embedding search.
	FileScannIndex
)

// String returns the name of the FileType value.
func (f FileType) String() string {
	switch f {
	case FileUnknown:
		return "UNKNOWN"
	case FileDescriptions:
		return "DESCRIPTIONS"
	case FileTensorAxisLabels:
		return "TENSOR_AXIS_LABELS"
	case FileTensorValueLabels:
		return "TENSOR_VALUE_LABELS"
	case FileTensorAxisScoreCalibration:
		return "TENSOR_AXIS_SCORE_CALIBRATION"
	case FileVocabulary:
		return "VOCABULARY"
	case FileScannIndex:
		return "SCANN_INDEX_FILE"
	}
	return fmt.Sprintf("file type %d", int8(f))
}
