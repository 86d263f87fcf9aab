#!/usr/bin/env python3
"""The C API (paddle_lite/paddle_lite_c.h) from Python through ctypes.

Standard library only: loads libpaddle_lite.so, runs real models from
SHARED_DIR/models on their reference inputs (a LoD input included) and
compares with their expected outputs within 1e-4 + 1e-3 * |expected|, then
checks that errors come back as a status and a message. Reads the models
read-only and writes no file. Prints SKIP and exits 0 when SHARED_DIR/models
is not there.

  c_api_ctypes_test.py LIBPADDLE_LITE.so SHARED_DIR
"""
import ast
import ctypes
import os
import struct
import sys

PD_OK = 0
PD_INVALID_ARGUMENT = 1
PD_NOT_FOUND = 2

# .npy descr -> (PD_DataType, struct format character).
NPY_TYPES = {
    "<f4": (0, "f"), "<f8": (1, "d"), "<f2": (2, "e"), "|i1": (4, "b"),
    "|u1": (5, "B"), "<i2": (6, "h"), "<i4": (7, "i"), "<i8": (8, "q"),
    "|b1": (9, "?"),
}
STRUCT_OF_DTYPE = {dtype: fmt for dtype, fmt in NPY_TYPES.values()}
# bfloat16 (no .npy descr, no struct format): its bits, widened below.
STRUCT_OF_DTYPE[3] = "H"


def widen_bfloat16(bits):
    """Float values of bfloat16 bit patterns (the high half of a float)."""
    return struct.unpack("<%df" % len(bits),
                         struct.pack("<%dI" % len(bits),
                                     *(b << 16 for b in bits)))

# (model folder, program file, params file): None for a folder model.
MODELS = [
    ("ppocr_cls_mobile_v2", "inference.pdmodel", "inference.pdiparams"),
    ("textcnn_news_fluid", None, None),
]


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def read_npy(path):
    """(descr, shape, raw little-endian bytes) of an .npy file, C order."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not an .npy file")
    major = data[6]
    if major == 1:
        (header_len,) = struct.unpack_from("<H", data, 8)
        start = 10
    elif major in (2, 3):
        (header_len,) = struct.unpack_from("<I", data, 8)
        start = 12
    else:
        raise ValueError(f"{path}: .npy version {major}")
    header = ast.literal_eval(data[start:start + header_len].decode("latin1"))
    if header["fortran_order"] or header["descr"] not in NPY_TYPES:
        raise ValueError(f"{path}: unsupported layout {header}")
    shape = tuple(header["shape"])
    body = data[start + header_len:]
    count = 1
    for d in shape:
        count *= d
    if len(body) != count * struct.calcsize("<" + NPY_TYPES[header["descr"]][1]):
        raise ValueError(f"{path}: {len(body)} data bytes for shape {shape}")
    return header["descr"], shape, body


def read_lod(path):
    """LoD levels of an input_<feed>.lod.txt: one line of offsets each."""
    with open(path) as f:
        return [[int(v) for v in line.split(",")] for line in f if line.strip()]


class CApi:
    """The functions of paddle_lite_c.h this test calls, typed."""

    def __init__(self, library):
        lib = ctypes.CDLL(library)
        c_int, c_size, p = ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p
        pp = ctypes.POINTER(ctypes.c_void_p)
        signatures = {
            "PD_GetLastError": (ctypes.c_char_p, []),
            "PD_StatusName": (ctypes.c_char_p, [c_int]),
            "PD_CApiVersion": (c_int, []),
            "PD_DataTypeSize": (c_size, [c_int]),
            "PD_ConfigCreate": (c_int, [pp]),
            "PD_ConfigDestroy": (None, [p]),
            "PD_ConfigSetModel": (c_int, [p, ctypes.c_char_p, ctypes.c_char_p]),
            "PD_ConfigSetCpuThreads": (c_int, [p, c_int]),
            "PD_PredictorCreate": (c_int, [p, pp]),
            "PD_PredictorClone": (c_int, [p, pp]),
            "PD_PredictorDestroy": (None, [p]),
            "PD_PredictorRun": (c_int, [p]),
            "PD_PredictorGetInputNum": (c_size, [p]),
            "PD_PredictorGetOutputNum": (c_size, [p]),
            "PD_PredictorGetInputName": (c_int, [p, c_size, ctypes.POINTER(ctypes.c_char_p)]),
            "PD_PredictorGetOutputName": (c_int, [p, c_size, ctypes.POINTER(ctypes.c_char_p)]),
            "PD_PredictorGetInputHandle": (c_int, [p, ctypes.c_char_p, pp]),
            "PD_PredictorGetOutputHandle": (c_int, [p, ctypes.c_char_p, pp]),
            "PD_TensorDestroy": (None, [p]),
            "PD_TensorGetName": (ctypes.c_char_p, [p]),
            "PD_TensorReshape": (c_int, [p, c_size, ctypes.POINTER(ctypes.c_int64)]),
            "PD_TensorCopyFromCpu": (c_int, [p, c_int, p, c_size]),
            "PD_TensorCopyToCpu": (c_int, [p, p, c_size]),
            "PD_TensorGetNumDims": (c_int, [p, ctypes.POINTER(c_size)]),
            "PD_TensorGetDims": (c_int, [p, ctypes.POINTER(ctypes.c_int64), c_size]),
            "PD_TensorGetDataType": (c_int, [p, ctypes.POINTER(c_int)]),
            "PD_TensorSetLoD": (c_int, [p, c_size, ctypes.POINTER(c_size),
                                        ctypes.POINTER(c_size)]),
            "PD_TensorGetLoDNumLevels": (c_int, [p, ctypes.POINTER(c_size)]),
            "PD_TensorGetLoDLevel": (c_int, [p, c_size, ctypes.POINTER(c_size),
                                             c_size, ctypes.POINTER(c_size)]),
        }
        for name, (restype, argtypes) in signatures.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name[3:], fn)

    def check(self, status, what):
        if status != PD_OK:
            raise ApiError(status, f"{what}: {self.GetLastError().decode()}")

    def create_predictor(self, model, program=None, params=None, threads=1):
        config = ctypes.c_void_p()
        self.check(self.ConfigCreate(ctypes.byref(config)), "PD_ConfigCreate")
        try:
            if program:
                self.check(self.ConfigSetModel(config, os.path.join(model, program).encode(),
                                               os.path.join(model, params).encode()),
                           "PD_ConfigSetModel")
            else:
                self.check(self.ConfigSetModel(config, model.encode(), None),
                           "PD_ConfigSetModel")
            self.check(self.ConfigSetCpuThreads(config, threads), "PD_ConfigSetCpuThreads")
            predictor = ctypes.c_void_p()
            self.check(self.PredictorCreate(config, ctypes.byref(predictor)),
                       "PD_PredictorCreate")
            return predictor
        finally:
            self.ConfigDestroy(config)

    def names(self, predictor, count_fn, name_fn):
        names = []
        for i in range(count_fn(predictor)):
            name = ctypes.c_char_p()
            self.check(name_fn(predictor, i, ctypes.byref(name)), f"name {i}")
            names.append(name.value.decode())
        return names

    def feed(self, predictor, name, descr, shape, body, lod=None):
        tensor = ctypes.c_void_p()
        self.check(self.PredictorGetInputHandle(predictor, name.encode(),
                                                ctypes.byref(tensor)),
                   f"input handle {name}")
        try:
            dims = (ctypes.c_int64 * len(shape))(*shape)
            self.check(self.TensorReshape(tensor, len(shape), dims), f"reshape {name}")
            buf = ctypes.create_string_buffer(body, len(body))
            self.check(self.TensorCopyFromCpu(tensor, NPY_TYPES[descr][0], buf, len(body)),
                       f"copy into {name}")
            if lod:
                sizes = (ctypes.c_size_t * len(lod))(*[len(level) for level in lod])
                flat = [v for level in lod for v in level]
                offsets = (ctypes.c_size_t * len(flat))(*flat)
                self.check(self.TensorSetLoD(tensor, len(lod), sizes, offsets),
                           f"LoD of {name}")
                got = self.lod(tensor)
                if got != lod:
                    raise ApiError(-1, f"LoD of {name} reads back as {got}, set {lod}")
        finally:
            self.TensorDestroy(tensor)

    def lod(self, tensor):
        levels = ctypes.c_size_t()
        self.check(self.TensorGetLoDNumLevels(tensor, ctypes.byref(levels)), "LoD levels")
        out = []
        for level in range(levels.value):
            size = ctypes.c_size_t()
            self.check(self.TensorGetLoDLevel(tensor, level, None, 0, ctypes.byref(size)),
                       "LoD level size")
            offsets = (ctypes.c_size_t * size.value)()
            self.check(self.TensorGetLoDLevel(tensor, level, offsets, size.value,
                                              ctypes.byref(size)), "LoD level")
            out.append(list(offsets))
        return out

    def fetch(self, predictor, name):
        """(PD_DataType, shape, values) of output `name`."""
        tensor = ctypes.c_void_p()
        self.check(self.PredictorGetOutputHandle(predictor, name.encode(),
                                                 ctypes.byref(tensor)),
                   f"output handle {name}")
        try:
            ndim = ctypes.c_size_t()
            self.check(self.TensorGetNumDims(tensor, ctypes.byref(ndim)), "ndim")
            dims = (ctypes.c_int64 * max(ndim.value, 1))()
            self.check(self.TensorGetDims(tensor, dims, ndim.value), "dims")
            shape = tuple(dims[:ndim.value])
            dtype = ctypes.c_int()
            self.check(self.TensorGetDataType(tensor, ctypes.byref(dtype)), "dtype")
            count = 1
            for d in shape:
                count *= d
            nbytes = count * self.DataTypeSize(dtype.value)
            buf = ctypes.create_string_buffer(max(nbytes, 1))
            self.check(self.TensorCopyToCpu(tensor, buf, nbytes), f"copy out of {name}")
            if dtype.value not in STRUCT_OF_DTYPE:
                raise ApiError(PD_OK, f"output {name}: data type "
                                      f"{dtype.value}, which this test "
                                      "cannot read")
            fmt = "<%d%s" % (count, STRUCT_OF_DTYPE[dtype.value])
            values = struct.unpack(fmt, buf.raw[:nbytes])
            if dtype.value == 3:
                values = widen_bfloat16(values)
            return dtype.value, shape, values
        finally:
            self.TensorDestroy(tensor)


def compare(name, got, expected_path):
    """Problems of output `got` against an expected .npy; [] when it matches."""
    dtype, shape, values = got
    descr, want_shape, body = read_npy(expected_path)
    if NPY_TYPES[descr][0] != dtype or tuple(want_shape) != shape:
        return [f"{name}: got dtype {dtype} {list(shape)}, expected {descr} {list(want_shape)}"]
    want = struct.unpack("<%d%s" % (len(values), NPY_TYPES[descr][1]), body)
    bad = [i for i, (g, e) in enumerate(zip(values, want))
           if not abs(g - e) <= 1e-4 + 1e-3 * abs(e)]
    if bad:
        i = bad[0]
        return [f"{name}: {len(bad)} of {len(values)} elements off, first [{i}]: "
                f"got {values[i]}, expected {want[i]}"]
    return []


def run_model(api, models, folder, program, params):
    model = os.path.join(models, folder)
    ref = os.path.join(model, "ref")
    predictor = api.create_predictor(model, program, params, threads=2)
    clone = ctypes.c_void_p()
    try:
        inputs = api.names(predictor, api.PredictorGetInputNum, api.PredictorGetInputName)
        outputs = api.names(predictor, api.PredictorGetOutputNum, api.PredictorGetOutputName)
        api.check(api.PredictorClone(predictor, ctypes.byref(clone)), "PD_PredictorClone")
        problems = []
        # The predictor and its clone each run the reference inputs.
        for label, p in (("predictor", predictor), ("clone", clone)):
            for name in inputs:
                descr, shape, body = read_npy(os.path.join(ref, f"input_{name}.npy"))
                lod_path = os.path.join(ref, f"input_{name}.lod.txt")
                lod = read_lod(lod_path) if os.path.exists(lod_path) else None
                api.feed(p, name, descr, shape, body, lod)
            api.check(api.PredictorRun(p), "PD_PredictorRun")
            for name in outputs:
                expected = os.path.join(ref, "expected_%s.npy" % name.replace("/", "__"))
                if os.path.exists(expected):
                    problems += [f"{folder} ({label}): {m}"
                                 for m in compare(name, api.fetch(p, name), expected)]
        return problems
    finally:
        api.PredictorDestroy(clone)
        api.PredictorDestroy(predictor)


def check_errors(api, models):
    """Errors reach Python as a status and a message."""
    problems = []
    model = os.path.join(models, "ppocr_cls_mobile_v2")
    predictor = api.create_predictor(model, "inference.pdmodel", "inference.pdiparams")
    try:
        tensor = ctypes.c_void_p()
        status = api.PredictorGetInputHandle(predictor, b"no_such_input", ctypes.byref(tensor))
        message = api.GetLastError().decode()
        if status != PD_NOT_FOUND or "no_such_input" not in message or tensor.value:
            problems.append(f"unknown input: status {status}, message {message!r}")
        api.check(api.PredictorGetInputHandle(predictor, b"x", ctypes.byref(tensor)), "x")
        try:
            dims = (ctypes.c_int64 * 4)(1, 3, 48, 192)
            api.check(api.TensorReshape(tensor, 4, dims), "reshape")
            # 16 bytes where [1, 3, 48, 192] float32 takes 110592: refused
            # before a byte is read.
            short = ctypes.create_string_buffer(16)
            status = api.TensorCopyFromCpu(tensor, 0, short, 16)
            message = api.GetLastError().decode()
            if status != PD_INVALID_ARGUMENT or "110592 bytes" not in message:
                problems.append(f"short buffer: status {status}, message {message!r}")
        finally:
            api.TensorDestroy(tensor)
    finally:
        api.PredictorDestroy(predictor)
    status = api.PredictorRun(None)
    message = api.GetLastError().decode()
    if status != PD_INVALID_ARGUMENT or "predictor is NULL" not in message:
        problems.append(f"NULL predictor: status {status}, message {message!r}")
    return problems


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    library, shared = sys.argv[1], sys.argv[2]
    models = os.path.join(shared, "models")
    if not os.path.isdir(models):
        print(f"SKIP: {models} is not there (the real-model C API test needs ../shared)")
        return 0
    # A path, not a name for the loader to search for.
    api = CApi(os.path.abspath(library))
    problems = []
    if api.CApiVersion() != 5:
        problems.append(f"PD_CApiVersion() is {api.CApiVersion()}, this test knows 5")
    ran = 0
    for folder, program, params in MODELS:
        if not os.path.isdir(os.path.join(models, folder)):
            print(f"SKIP: {folder} is not in {models}")
            continue
        try:
            found = run_model(api, models, folder, program, params)
        except (ApiError, ValueError) as e:
            # ValueError: a reference file this test cannot read.
            found = [f"{folder}: {e}"]
        problems += found
        ran += 1
        print(f"{folder}: {'FAILED' if found else 'ok, matches its reference'}")
    if os.path.isdir(os.path.join(models, "ppocr_cls_mobile_v2")):
        problems += check_errors(api, models)
    for p in problems:
        print("FAILED:", p)
    print(f"c_api ctypes: {ran} models run, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
