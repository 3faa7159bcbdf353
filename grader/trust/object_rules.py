"""What a student's compiled object may import, for every lab: the object check's
allowlist. A lab's contract can allow more in its `lab.json` ("objects").

Everything not listed here is refused. The names are what the linker sees
(mangled for C++), matched whole.
"""

from __future__ import annotations

import re

# (pattern, why it is allowed): nvcc's launch and registration ABI, the C++
# runtime support the compiler emits, and runtime calls that only ask about the
# device or configure the student's own kernels.
ALLOWED_IMPORTS: tuple[tuple[str, str], ...] = (
    (
        r"__cuda(RegisterFatBinary|RegisterFatBinaryEnd|RegisterFunction|RegisterVar"
        r"|RegisterSharedVar|RegisterTexture|RegisterSurface|UnregisterFatBinary"
        r"|PushCallConfiguration|PopCallConfiguration|LaunchKernel|GetKernel|InitModule)",
        "nvcc's kernel launch and registration",
    ),
    (r"cudaLaunchKernel|cudaLaunchKernelExC|cudaLaunchCooperativeKernel", "kernel launches"),
    # nvcc's host copies of __device__ functions call exit(); the process's own
    # exit is harmless: a test that ends before the harness finishes fails.
    (r"atexit|exit", "nvcc's registration and its host stubs of device functions"),
    (
        r"_Unwind_Resume|__gxx_personality_v0|__cxa_guard_(acquire|release|abort)"
        r"|__cxa_(begin|end)_catch|__cxa_rethrow|_ZSt9terminatev|__stack_chk_fail|__assert_fail"
        r"|_ZSt\d+__throw_\w+",
        "C++ runtime support the compiler emits",
    ),
    # The __*_chk forms are what _FORTIFY_SOURCE (on by default on Ubuntu) turns them into.
    (
        r"(__)?mem(cpy|set|move|cmp)(_chk)?|_GLOBAL_OFFSET_TABLE_",
        "block copies and addressing the compiler emits",
    ),
    (
        r"(sqrt|cbrt|exp|exp2|expm1|log|log2|log10|log1p|pow|floor|ceil|round|lround|trunc"
        r"|fmin|fmax|fabs|fmod|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|hypot|ldexp"
        r"|frexp|ilogb)f?",
        "host maths",
    ),
    (r"printf|__printf_chk|puts|putchar", "printing (never read for a verdict)"),
    (
        r"cuda(GetDevice|GetDeviceCount|DeviceGetAttribute|GetDeviceProperties(_v2)?"
        r"|DriverGetVersion|RuntimeGetVersion|FuncGetAttributes|FuncSetAttribute"
        r"|FuncSetCacheConfig|Occupancy\w+|GetErrorString|GetErrorName|GetLastError"
        r"|PeekAtLastError|DeviceSynchronize|StreamSynchronize|Memset|MemsetAsync"
        r"|Memset2D|Memset2DAsync)",
        "device queries, kernel attributes and clearing memory",
    ),
    # Read-only runtime queries: they move no data and compute nothing (the CUDA
    # samples' histogram takes a __device__ array's address). Not allowed, although
    # they too only "get": cudaGetDriverEntryPoint* and cudaGetExportTable (they hand
    # out any driver function, copies included) and cudaIpc* (memory for another process).
    (
        r"cuda(GetSymbolAddress|GetSymbolSize|FuncGetName|DeviceGetLimit|DeviceGetCacheConfig"
        r"|GetDeviceFlags|MemGetInfo|PointerGetAttributes)",
        "read-only queries of symbols, kernels, limits and memory",
    ),
)

# Why a refused import is refused, for the finding's message: (pattern, what it is, fix).
REFUSED_IMPORTS: tuple[tuple[str, str, str], ...] = (
    (
        r"cuda(Malloc|Free|HostAlloc|HostRegister|MallocManaged|MallocHost|MallocAsync|FreeAsync"
        r"|MallocPitch|Malloc3D|MallocArray|MemPool)\w*|malloc|calloc|realloc|free|_Znwm|_Znam"
        r"|_ZdlPv\w*|_ZdaPv\w*|posix_memalign|aligned_alloc|mmap\w*",
        "allocates memory",
        "the launchers receive every buffer they need: use those",
    ),
    (
        r"cudaMemcpy\w*|cudaMemcpyPeer\w*",
        "copies memory (a copy to the host computes the answer there)",
        "compute on the GPU into the buffers the contract hands you",
    ),
    (
        r"cuda(Stream|Event|Graph|StreamBeginCapture|ThreadExchange|LaunchHostFunc|CtxResetPersisting"
        r"|DeviceReset|DeviceSetLimit|DeviceSetCacheConfig|DeviceSetSharedMemConfig|SetDevice"
        r"|SetDeviceFlags|Profiler)\w*|cu[A-Z]\w*",
        "creates streams, events or graphs, times, or changes the device for everyone",
        "launch on the default stream and let the harness time and manage the device",
    ),
    (
        r"cudaGetDriverEntryPoint\w*|cudaGetExportTable|cudaIpc\w*",
        "hands out the driver's functions (copies among them) or shares memory with "
        "another process",
        "use the runtime calls the lab allows by name",
    ),
    (
        r"(cublas|cublasLt|cudnn|cufft|cusparse|cusolver|curand|nvrtc|npp|nvjpeg|cutensor)\w*",
        "calls a library that computes the answer",
        "write the kernel yourself",
    ),
    (
        r"pthread_\w+|_ZNSt6thread\w*|_ZSt\w*async\w*|clone\w*|fork|vfork|system|popen|exec\w*"
        r"|posix_spawn\w*|kill|raise|signal|sigaction|abort|_exit|_Exit|quick_exit|setjmp|longjmp",
        "starts threads or processes, or ends the process",
        "do the work on the GPU inside the launcher and return",
    ),
    (
        r"f?open(at)?64|f?open|fdopen|freopen|creat|read|write|pread\w*|pwrite\w*|close|unlink\w*"
        r"|rename\w*|remove|mkdir\w*|f(read|write|puts|printf|flush|close|seek|tell)|std(in|out|err)"
        r"|_ZNSt\d+basic_[io]?f?stream\w*|_ZNSo\w*|_ZNSi\w*|_ZSt4cout|_ZSt4cerr|dl(open|sym|mopen)",
        "reads or writes files, or loads code",
        "a submission touches no file",
    ),
    (
        r"getenv|secure_getenv|setenv|putenv|unsetenv|environ|__environ",
        "reads or changes the environment",
        "a submission does not look at the grader's settings",
    ),
    (
        r"syscall|clock\w*|time|gettimeofday|_ZNSt6chrono\w*|rdtsc|sched_\w+|nanosleep|usleep"
        r"|sleep",
        "reads host clocks, sleeps or calls the kernel",
        "the harness does all the timing",
    ),
)

# What nvcc adds to an object compiled with relocatable device code (a file that
# lab.json's "objects" "relocatable" names, built so that its kernels may launch
# kernels), and only to such an object: the wrapper of its device code and the
# host references, defined, and the registration of the device-linked image,
# imported. `{file}`: the file's name as nvcc spells it (`nested_kernels_cu`).
RDC_ABI = (
    r"__fatbinwrap_[0-9a-f]+_\d+_{file}_[0-9a-f]+|__cudaRegisterLinkedBinary_[0-9a-f]+_\d+_{file}_"
    r"[0-9a-f]+|hostRef(Constant|Device|Kernel)Array(External|Internal)Linkage"
)

ALLOWED_IMPORT_PATTERN = re.compile("|".join(f"(?:{p})" for p, _ in ALLOWED_IMPORTS))
REFUSED_IMPORT_PATTERNS = tuple((re.compile(p), what, fix) for p, what, fix in REFUSED_IMPORTS)

# Namespaces whose code computes the answer for the student, seen in any
# symbol of the object (host stubs and template instances of their kernels),
# whatever alias or macro reached them.
LIBRARY_SYMBOL = re.compile(
    r"(?:^|[^\w:])(cub|thrust|cutlass|cute|nvbench)::"
    r"|_ZN(?:3(cub)|6(thrust)|7(cutlass)|4(cute))\w"
)
# Names nobody but the runtime, the harness or the test framework defines.
RESERVED_DEFINITION = re.compile(
    r"^(?:cuda\w*|cu[A-Z]\w*|__cuda\w*|main|harness::.*|testing::.*"
    r"|std::chrono::.*|gettimeofday|clock_gettime)$"
)
# The harness's and the test framework's own types: no student code names them, and a
# template instance over one (std::vector<testing::TestPartResult>'s growth, which
# records a failure) is a copy of the framework's code that the linker may keep instead.
RESERVED_TYPE = re.compile(r"\b(?:testing|harness)::")
# Sections whose code or entries run before main or after it: the names GNU ld's
# default script gathers into .init, .fini and the arrays, priority suffixes included
# (`constructor(101)` makes .init_array.00101). nvcc's one .init_array entry, which
# registers the kernels, is checked by name.
STARTUP_SECTION = re.compile(
    r"\.(?:init|fini)|\.(?:preinit_array|init_array|fini_array|ctors|dtors)(?:\..*)?"
)
NVCC_REGISTRATION = "__sti____cudaRegisterAll"
# Included files from these folders (of the CUDA toolkit) compute answers.
LIBRARY_INCLUDE = re.compile(
    r"/(cub|thrust|cutlass|cute|nvbench)/|/(?:cublas|cudnn|cufft"
    r"|cusparse|cusolver|curand|nvrtc|npp|nvjpeg|cutensor)\w*\.h\w*$"
)

# Device instruction classes a lab may forbid (`objects.device.forbid` in lab.json):
# class -> (SASS opcode, PTX instruction, what it is). Both are read: an object holds
# SASS for the architectures it was built for and PTX the driver compiles for others.
DEVICE_CLASSES: dict[str, tuple[re.Pattern[str], re.Pattern[str], str]] = {
    "tensor-core": (
        # HMMA, IMMA, DMMA, BMMA (mma.sync, WMMA), HGMMA/IGMMA/QGMMA (wgmma), UTC*MMA (tcgen05)
        re.compile(r"[A-Z]*MMA(?:\..*)?"),
        re.compile(r"(?:mma|wmma\.mma|wgmma\.mma_async|tcgen05\.mma\w*)(?:\..*)?"),
        "a tensor-core matrix instruction (mma.sync, WMMA, wgmma)",
    ),
}
