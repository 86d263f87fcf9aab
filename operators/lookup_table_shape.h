// Checks shared by the embedding ops lookup_table and lookup_table_v2
// (spec §11.1, §11.2): W is a [V, D] table and Ids holds integer ids.
#pragma once

#include <string>

#include "framework/op_registry.h"

namespace paddle_lite {
namespace operators {

/// Validates W (2-D) and the dtype of Ids (int32 or int64); returns W's
/// dims. Throws InvalidArgument naming the op and the shapes.
inline framework::DDim CheckLookupTableInputs(
    const framework::InferShapeContext& ctx) {
  const std::string& type = ctx.op().Type();
  const auto table = ctx.GetInputDim("W");
  const auto ids = ctx.GetInputDim("Ids");
  PADDLE_ENFORCE_EQ(table.size(), 2u,
                    errors::InvalidArgument(type,
                                            ": W must be a 2-D [V, D] "
                                            "table, got ",
                                            table, " (Ids ", ids, ")"));
  const framework::DataType id_type = ctx.GetInputDataType("Ids");
  PADDLE_ENFORCE(id_type == framework::DataType::kInt64 ||
                     id_type == framework::DataType::kInt32,
                 errors::InvalidArgument(type,
                                         ": Ids must be int64 or int32, "
                                         "got ",
                                         id_type, " ", ids));
  return table;
}

/// The common op Maker: slots W, Ids, Out and the padding_idx attribute.
class LookupTableOpMaker : public framework::OpProtoAndCheckerMaker {
 public:
  void Make() final {
    AddInput("W", "[V, D] embedding table");
    AddInput("Ids", "integer row ids into W");
    AddOutput("Out", "the looked-up rows, LoD of Ids");
    AddAttr<int64_t>("padding_idx", "id whose rows are all zeros; -1 = none")
        .SetDefault(-1);
  }
};

}  // namespace operators
}  // namespace paddle_lite
