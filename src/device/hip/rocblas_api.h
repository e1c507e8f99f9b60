#pragma once
// The few rocBLAS C entry points and enums the HIP backend uses, declared here because Debian
// ships no rocBLAS headers; the library itself (librocblas.so from ROCm or DTK) is loaded with
// dlopen at run time. Values are rocBLAS's stable ABI (rocblas-types.h), unchanged since 2.x.
#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>

extern "C" {

typedef struct _rocblas_handle* rocblas_handle;
typedef int32_t rocblas_int;

typedef enum rocblas_status_ { rocblas_status_success = 0 } rocblas_status;

typedef enum rocblas_operation_ {
  rocblas_operation_none = 111,
  rocblas_operation_transpose = 112,
} rocblas_operation;

typedef enum rocblas_datatype_ {
  rocblas_datatype_f16_r = 150,
  rocblas_datatype_f32_r = 151,
  rocblas_datatype_f64_r = 152,
  rocblas_datatype_i8_r = 160,
  rocblas_datatype_i32_r = 162,
  rocblas_datatype_bf16_r = 168,
} rocblas_datatype;

typedef enum rocblas_gemm_algo_ { rocblas_gemm_algo_standard = 0 } rocblas_gemm_algo;

typedef rocblas_status (*rocblas_create_handle_fn)(rocblas_handle* handle);
typedef rocblas_status (*rocblas_destroy_handle_fn)(rocblas_handle handle);
typedef rocblas_status (*rocblas_set_stream_fn)(rocblas_handle handle, hipStream_t stream);
typedef rocblas_status (*rocblas_get_version_string_size_fn)(size_t* len);
typedef rocblas_status (*rocblas_get_version_string_fn)(char* buf, size_t len);
/// Present in rocBLAS ≥ 2.40 only; optional.
typedef const char* (*rocblas_status_to_string_fn)(rocblas_status status);
typedef rocblas_status (*rocblas_gemm_ex_fn)(rocblas_handle handle, rocblas_operation trans_a,
                                             rocblas_operation trans_b, rocblas_int m, rocblas_int n, rocblas_int k,
                                             const void* alpha, const void* a, rocblas_datatype a_type, rocblas_int lda,
                                             const void* b, rocblas_datatype b_type, rocblas_int ldb, const void* beta,
                                             const void* c, rocblas_datatype c_type, rocblas_int ldc, void* d,
                                             rocblas_datatype d_type, rocblas_int ldd, rocblas_datatype compute_type,
                                             rocblas_gemm_algo algo, int32_t solution_index, uint32_t flags);

}  // extern "C"
