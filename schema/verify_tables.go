package schema

// Descriptors of every table in schema.fbs, for VerifyModel. Each field is
// listed with its slot (its position among the table's fields in
// schema.fbs, counting deprecated fields and giving a union two slots: type,
// then value). Deprecated fields have no generated accessor and are not
// listed. TestVerifierCoversSchema checks these lists against the generated
// code, field by field.

// Field constructors, to keep the lists one line per field.
func scalar(name string, slot, size int) fieldDesc {
	return fieldDesc{name: name, slot: slot, kind: scalarField, size: size}
}
func str(name string, slot int) fieldDesc {
	return fieldDesc{name: name, slot: slot, kind: stringField}
}
func vec(name string, slot int, elem string, size int) fieldDesc {
	return fieldDesc{name: name, slot: slot, kind: vectorField, size: size, elem: elem}
}
func tab(name string, slot int, t *tableDesc) fieldDesc {
	return fieldDesc{name: name, slot: slot, kind: tableField, table: t}
}
func tabs(name string, slot int, t *tableDesc) fieldDesc {
	return fieldDesc{name: name, slot: slot, kind: tablesField, table: t}
}

// uni is a union field; slot is its type slot, slot+1 its value slot.
func uni(name string, slot int, u *unionDesc) fieldDesc {
	return fieldDesc{name: name, slot: slot, kind: unionField, union: u}
}

func table(name string, fields ...fieldDesc) *tableDesc {
	return &tableDesc{name: name, fields: fields}
}

// Element types of scalar vectors.
func i32s(name string, slot int) fieldDesc { return vec(name, slot, "int32", 4) }
func i64s(name string, slot int) fieldDesc { return vec(name, slot, "int64", 8) }
func f32s(name string, slot int) fieldDesc { return vec(name, slot, "float32", 4) }
func u8s(name string, slot int) fieldDesc  { return vec(name, slot, "uint8", 1) }

// ---- model-level tables ----

var modelDesc = table("Model",
	scalar("version", 0, 4),
	tabs("operator_codes", 1, operatorCodeDesc),
	tabs("subgraphs", 2, subGraphDesc),
	str("description", 3),
	tabs("buffers", 4, bufferDesc),
	i32s("metadata_buffer", 5),
	tabs("metadata", 6, metadataDesc),
	tabs("signature_defs", 7, signatureDefDesc),
	tabs("external_buffer_groups", 8, externalBufferGroupDesc),
	tabs("external_buffers", 9, externalBufferDesc),
)

var operatorCodeDesc = table("OperatorCode",
	scalar("deprecated_builtin_code", 0, 1),
	str("custom_code", 1),
	scalar("version", 2, 4),
	scalar("builtin_code", 3, 4),
)

var subGraphDesc = table("SubGraph",
	tabs("tensors", 0, tensorDesc),
	i32s("inputs", 1),
	i32s("outputs", 2),
	tabs("operators", 3, operatorDesc),
	str("name", 4),
	scalar("debug_metadata_index", 5, 4),
)

var bufferDesc = table("Buffer",
	u8s("data", 0),
	scalar("offset", 1, 8),
	scalar("size", 2, 8),
)

var metadataDesc = table("Metadata",
	str("name", 0),
	scalar("buffer", 1, 4),
)

var tensorMapDesc = table("TensorMap",
	str("name", 0),
	scalar("tensor_index", 1, 4),
)

var signatureDefDesc = table("SignatureDef",
	tabs("inputs", 0, tensorMapDesc),
	tabs("outputs", 1, tensorMapDesc),
	str("signature_key", 2),
	// slot 3: deprecated_tag (deprecated)
	scalar("subgraph_index", 4, 4),
)

var externalBufferGroupDesc = table("ExternalBufferGroup",
	str("name", 0),
)

var externalBufferDesc = table("ExternalBuffer",
	scalar("id", 0, 4),
	scalar("group", 1, 4),
	scalar("offset", 2, 8),
	scalar("length", 3, 8),
	str("packing", 4),
)

// ---- tensors ----

var tensorDesc = table("Tensor",
	i32s("shape", 0),
	scalar("type", 1, 1),
	scalar("buffer", 2, 4),
	str("name", 3),
	tab("quantization", 4, quantizationParametersDesc),
	scalar("is_variable", 5, 1),
	tab("sparsity", 6, sparsityParametersDesc),
	i32s("shape_signature", 7),
	scalar("has_rank", 8, 1),
	tabs("variant_tensors", 9, variantSubTypeDesc),
	scalar("external_buffer", 10, 4),
)

var variantSubTypeDesc = table("VariantSubType",
	i32s("shape", 0),
	scalar("type", 1, 1),
	scalar("has_rank", 2, 1),
)

var quantizationParametersDesc = table("QuantizationParameters",
	f32s("min", 0),
	f32s("max", 1),
	f32s("scale", 2),
	i64s("zero_point", 3),
	uni("details", 4, quantizationDetailsDesc),
	scalar("quantized_dimension", 6, 4),
)

var quantizationDetailsDesc = &unionDesc{name: "QuantizationDetails", members: []*tableDesc{
	table("CustomQuantization", u8s("custom", 0)),
	table("BlockwiseQuantization",
		scalar("scales", 0, 4), scalar("zero_points", 1, 4), scalar("block_size", 2, 4)),
	table("MultiAxisQuantization",
		scalar("scales", 0, 4), scalar("zero_points", 1, 4), scalar("block_size", 2, 4),
		i32s("quantized_dimensions", 3)),
}}

var sparsityParametersDesc = table("SparsityParameters",
	i32s("traversal_order", 0),
	i32s("block_map", 1),
	tabs("dim_metadata", 2, dimensionMetadataDesc),
)

var dimensionMetadataDesc = table("DimensionMetadata",
	scalar("format", 0, 1),
	scalar("dense_size", 1, 4),
	uni("array_segments", 2, sparseIndexVectorDesc),
	uni("array_indices", 4, sparseIndexVectorDesc),
)

var sparseIndexVectorDesc = &unionDesc{name: "SparseIndexVector", members: []*tableDesc{
	table("Int32Vector", i32s("values", 0)),
	table("Uint16Vector", vec("values", 0, "uint16", 2)),
	table("Uint8Vector", u8s("values", 0)),
}}

// ---- operators ----

var operatorDesc = table("Operator",
	scalar("opcode_index", 0, 4),
	i32s("inputs", 1),
	i32s("outputs", 2),
	uni("builtin_options", 3, builtinOptionsDesc),
	u8s("custom_options", 5),
	scalar("custom_options_format", 6, 1),
	vec("mutating_variable_inputs", 7, "bool", 1),
	i32s("intermediates", 8),
	scalar("large_custom_options_offset", 9, 8),
	scalar("large_custom_options_size", 10, 8),
	uni("builtin_options_2", 11, builtinOptions2Desc),
	scalar("debug_metadata_index", 13, 4),
)

// Shorthands for the options tables' scalar fields of 1, 4 and 8 bytes.
func f1(name string, slot int) fieldDesc { return scalar(name, slot, 1) }
func f4(name string, slot int) fieldDesc { return scalar(name, slot, 4) }
func f8(name string, slot int) fieldDesc { return scalar(name, slot, 8) }

// builtinOptionsDesc lists BuiltinOptions' members in union order: the
// member at index i has type number i+1 (FullyConnectedOptions = 8).
var builtinOptionsDesc = &unionDesc{name: "BuiltinOptions", members: []*tableDesc{
	table("Conv2DOptions", f1("padding", 0), f4("stride_w", 1), f4("stride_h", 2),
		f1("fused_activation_function", 3), f4("dilation_w_factor", 4), f4("dilation_h_factor", 5),
		f1("quantized_bias_type", 6)),
	table("DepthwiseConv2DOptions", f1("padding", 0), f4("stride_w", 1), f4("stride_h", 2),
		f4("depth_multiplier", 3), f1("fused_activation_function", 4), f4("dilation_w_factor", 5),
		f4("dilation_h_factor", 6)),
	table("ConcatEmbeddingsOptions", f4("num_channels", 0), i32s("num_columns_per_channel", 1),
		i32s("embedding_dim_per_channel", 2)),
	table("LSHProjectionOptions", f1("type", 0)),
	table("Pool2DOptions", f1("padding", 0), f4("stride_w", 1), f4("stride_h", 2),
		f4("filter_width", 3), f4("filter_height", 4), f1("fused_activation_function", 5)),
	table("SVDFOptions", f4("rank", 0), f1("fused_activation_function", 1),
		f1("asymmetric_quantize_inputs", 2)),
	table("RNNOptions", f1("fused_activation_function", 0), f1("asymmetric_quantize_inputs", 1)),
	table("FullyConnectedOptions", f1("fused_activation_function", 0), f1("weights_format", 1),
		f1("keep_num_dims", 2), f1("asymmetric_quantize_inputs", 3), f1("quantized_bias_type", 4)),
	table("SoftmaxOptions", f4("beta", 0)),
	table("ConcatenationOptions", f4("axis", 0), f1("fused_activation_function", 1)),
	table("AddOptions", f1("fused_activation_function", 0), f1("pot_scale_int16", 1)),
	table("L2NormOptions", f1("fused_activation_function", 0)),
	table("LocalResponseNormalizationOptions", f4("radius", 0), f4("bias", 1), f4("alpha", 2),
		f4("beta", 3)),
	table("LSTMOptions", f1("fused_activation_function", 0), f4("cell_clip", 1), f4("proj_clip", 2),
		f1("kernel_type", 3), f1("asymmetric_quantize_inputs", 4)),
	// slots 0 and 1 (new_height, new_width) are deprecated.
	table("ResizeBilinearOptions", f1("align_corners", 2), f1("half_pixel_centers", 3)),
	table("CallOptions", f4("subgraph", 0)),
	table("ReshapeOptions", i32s("new_shape", 0)),
	table("SkipGramOptions", f4("ngram_size", 0), f4("max_skip_size", 1),
		f1("include_all_ngrams", 2)),
	table("SpaceToDepthOptions", f4("block_size", 0)),
	table("EmbeddingLookupSparseOptions", f1("combiner", 0)),
	table("MulOptions", f1("fused_activation_function", 0)),
	table("PadOptions"),
	table("GatherOptions", f4("axis", 0), f4("batch_dims", 1)),
	table("BatchToSpaceNDOptions"),
	table("SpaceToBatchNDOptions"),
	table("TransposeOptions"),
	table("ReducerOptions", f1("keep_dims", 0)),
	table("SubOptions", f1("fused_activation_function", 0), f1("pot_scale_int16", 1)),
	table("DivOptions", f1("fused_activation_function", 0)),
	table("SqueezeOptions", i32s("squeeze_dims", 0)),
	table("SequenceRNNOptions", f1("time_major", 0), f1("fused_activation_function", 1),
		f1("asymmetric_quantize_inputs", 2)),
	table("StridedSliceOptions", f4("begin_mask", 0), f4("end_mask", 1), f4("ellipsis_mask", 2),
		f4("new_axis_mask", 3), f4("shrink_axis_mask", 4), f1("offset", 5)),
	table("ExpOptions"),
	table("TopKV2Options"),
	table("SplitOptions", f4("num_splits", 0)),
	table("LogSoftmaxOptions"),
	table("CastOptions", f1("in_data_type", 0), f1("out_data_type", 1)),
	table("DequantizeOptions"),
	table("MaximumMinimumOptions"),
	table("ArgMaxOptions", f1("output_type", 0)),
	table("LessOptions"),
	table("NegOptions"),
	table("PadV2Options"),
	table("GreaterOptions"),
	table("GreaterEqualOptions"),
	table("LessEqualOptions"),
	table("SelectOptions"),
	table("SliceOptions"),
	table("TransposeConvOptions", f1("padding", 0), f4("stride_w", 1), f4("stride_h", 2),
		f1("fused_activation_function", 3), f1("quantized_bias_type", 4)),
	table("SparseToDenseOptions", f1("validate_indices", 0)),
	table("TileOptions"),
	table("ExpandDimsOptions"),
	table("EqualOptions"),
	table("NotEqualOptions"),
	table("ShapeOptions", f1("out_type", 0)),
	table("PowOptions"),
	table("ArgMinOptions", f1("output_type", 0)),
	table("FakeQuantOptions", f4("min", 0), f4("max", 1), f4("num_bits", 2), f1("narrow_range", 3)),
	table("PackOptions", f4("values_count", 0), f4("axis", 1)),
	table("LogicalOrOptions"),
	table("OneHotOptions", f4("axis", 0)),
	table("LogicalAndOptions"),
	table("LogicalNotOptions"),
	table("UnpackOptions", f4("num", 0), f4("axis", 1)),
	table("FloorDivOptions"),
	table("SquareOptions"),
	table("ZerosLikeOptions"),
	table("FillOptions"),
	table("BidirectionalSequenceLSTMOptions", f1("fused_activation_function", 0),
		f4("cell_clip", 1), f4("proj_clip", 2), f1("merge_outputs", 3), f1("time_major", 4),
		f1("asymmetric_quantize_inputs", 5)),
	table("BidirectionalSequenceRNNOptions", f1("time_major", 0),
		f1("fused_activation_function", 1), f1("merge_outputs", 2),
		f1("asymmetric_quantize_inputs", 3)),
	table("UnidirectionalSequenceLSTMOptions", f1("fused_activation_function", 0),
		f4("cell_clip", 1), f4("proj_clip", 2), f1("time_major", 3),
		f1("asymmetric_quantize_inputs", 4), f1("diagonal_recurrent_tensors", 5)),
	table("FloorModOptions"),
	table("RangeOptions"),
	table("ResizeNearestNeighborOptions", f1("align_corners", 0), f1("half_pixel_centers", 1)),
	table("LeakyReluOptions", f4("alpha", 0)),
	table("SquaredDifferenceOptions"),
	table("MirrorPadOptions", f1("mode", 0)),
	table("AbsOptions"),
	table("SplitVOptions", f4("num_splits", 0)),
	table("UniqueOptions", f1("idx_out_type", 0)),
	table("ReverseV2Options"),
	table("AddNOptions"),
	table("GatherNdOptions"),
	table("CosOptions"),
	table("WhereOptions"),
	table("RankOptions"),
	table("ReverseSequenceOptions", f4("seq_dim", 0), f4("batch_dim", 1)),
	table("MatrixDiagOptions"),
	table("QuantizeOptions"),
	table("MatrixSetDiagOptions"),
	table("HardSwishOptions"),
	table("IfOptions", f4("then_subgraph_index", 0), f4("else_subgraph_index", 1)),
	table("WhileOptions", f4("cond_subgraph_index", 0), f4("body_subgraph_index", 1)),
	table("DepthToSpaceOptions", f4("block_size", 0)),
	table("NonMaxSuppressionV4Options"),
	table("NonMaxSuppressionV5Options"),
	table("ScatterNdOptions"),
	table("SelectV2Options"),
	table("DensifyOptions"),
	table("SegmentSumOptions"),
	table("BatchMatMulOptions", f1("adj_x", 0), f1("adj_y", 1), f1("asymmetric_quantize_inputs", 2)),
	table("CumsumOptions", f1("exclusive", 0), f1("reverse", 1)),
	table("CallOnceOptions", f4("init_subgraph_index", 0)),
	table("BroadcastToOptions"),
	table("Rfft2dOptions"),
	table("Conv3DOptions", f1("padding", 0), f4("stride_d", 1), f4("stride_w", 2), f4("stride_h", 3),
		f1("fused_activation_function", 4), f4("dilation_d_factor", 5), f4("dilation_w_factor", 6),
		f4("dilation_h_factor", 7)),
	table("HashtableOptions", f4("table_id", 0), f1("key_dtype", 1), f1("value_dtype", 2)),
	table("HashtableFindOptions"),
	table("HashtableImportOptions"),
	table("HashtableSizeOptions"),
	table("VarHandleOptions", str("container", 0), str("shared_name", 1)),
	table("ReadVariableOptions"),
	table("AssignVariableOptions"),
	table("RandomOptions", f8("seed", 0), f8("seed2", 1)),
	table("BucketizeOptions", f32s("boundaries", 0)),
	table("GeluOptions", f1("approximate", 0)),
	table("DynamicUpdateSliceOptions"),
	table("UnsortedSegmentProdOptions"),
	table("UnsortedSegmentMaxOptions"),
	table("UnsortedSegmentMinOptions"),
	table("UnsortedSegmentSumOptions"),
	table("ATan2Options"),
	table("SignOptions"),
	table("BitcastOptions"),
	table("BitwiseXorOptions"),
	table("RightShiftOptions"),
}}

// builtinOptions2Desc lists BuiltinOptions2's members in union order.
var builtinOptions2Desc = &unionDesc{name: "BuiltinOptions2", members: []*tableDesc{
	table("StablehloConcatenateOptions", f8("dimension", 0)),
	table("StablehloBroadcastInDimOptions", i64s("broadcast_dimensions", 0)),
	table("StablehloSliceOptions", i64s("start_indices", 0), i64s("limit_indices", 1),
		i64s("strides", 2)),
	table("StablehloConvolutionOptions", i64s("window_strides", 0), i64s("padding", 1),
		i64s("lhs_dilation", 2), i64s("rhs_dilation", 3), vec("window_reversal", 4, "bool", 1),
		f8("input_batch_dimension", 5), f8("input_feature_dimension", 6),
		i64s("input_spatial_dimensions", 7), f8("kernel_input_feature_dimension", 8),
		f8("kernel_output_feature_dimension", 9), i64s("kernel_spatial_dimensions", 10),
		f8("output_batch_dimension", 11), f8("output_feature_dimension", 12),
		i64s("output_spatial_dimensions", 13), f8("feature_group_count", 14),
		f8("batch_group_count", 15), vec("precision_config", 16, "uint32", 4)),
	table("StablehloCustomCallOptions", str("call_target_name", 0), f1("has_side_effect", 1),
		str("backend_config", 2), f4("api_version", 3), i32s("called_computations", 4),
		u8s("custom_attributes", 5)),
	table("StablehloReduceOptions", i64s("dimensions", 0), f4("body_subgraph_index", 1)),
	table("StablehloScatterOptions", f1("indices_are_sorted", 0), i64s("update_window_dims", 1),
		i64s("inserted_window_dims", 2), i64s("scatter_dims_to_operand_dims", 3),
		f8("index_vector_dim", 4), f1("unique_indices", 5),
		f4("update_computation_subgraph_index", 6)),
	table("StablehloCompareOptions", f4("comparison_direction", 0), f4("compare_type", 1)),
	table("StablehloDynamicSliceOptions", i64s("slice_sizes", 0)),
	table("StablehloPadOptions", i64s("edge_padding_low", 0), i64s("edge_padding_high", 1),
		i64s("interior_padding", 2)),
	table("StablehloIotaOptions", f8("iota_dimension", 0)),
	table("StablehloDotGeneralOptions", i64s("lhs_batching_dimensions", 0),
		i64s("rhs_batching_dimensions", 1), i64s("lhs_contracting_dimensions", 2),
		i64s("rhs_contracting_dimensions", 3), vec("precision_config", 4, "uint32", 4)),
	table("StablehloReduceWindowOptions", i64s("window_dimensions", 0),
		i64s("window_strides", 1), i64s("base_dilations", 2), i64s("window_dilations", 3),
		i64s("padding", 4), f4("body_subgraph_index", 5)),
	table("StablehloSortOptions", f8("dimension", 0), f1("is_stable", 1),
		f4("comparator_subgraph_index", 2)),
	table("StablehloWhileOptions", f4("cond_subgraph_index", 0), f4("body_subgraph_index", 1)),
	table("StablehloGatherOptions", i64s("offset_dims", 0), i64s("collapsed_slice_dims", 1),
		i64s("start_index_map", 2), f8("index_vector_dim", 3), i64s("slice_sizes", 4),
		f1("indices_are_sorted", 5)),
	table("StablehloTransposeOptions", i64s("permutation", 0)),
	table("DilateOptions"),
	table("StablehloRngBitGeneratorOptions", f1("algorithm", 0)),
	table("ReduceWindowOptions", f4("reduce_function", 0)),
	table("StableHLOCompositeOptions", str("name", 0), f4("decomposition_subgraph_index", 1),
		u8s("composite_attributes", 2), f1("composite_attributes_format", 3), f4("version", 4)),
	table("StablehloShiftLeftOptions"),
	table("StablehloCaseOptions", i32s("branch_subgraph_indices", 0)),
}}
