// KNOWN WRONG (hardcoded): histogram_best recognises the public 2^25 cases by n (and
// the first sample) and writes their histograms, baked into the source, without reading
// the data. It passes every public case and fails the hidden ones.
// The reference solution with exactly this one defect; the grader must
// reject it for this reason (submissions/known_wrong/manifest.json).
#include "histogram.cuh"

namespace lab1 {
namespace {

void zero(int* hist) { cudaMemsetAsync(hist, 0, kBins * sizeof(int)); }

// First sample of thread `tid`'s slice; 64-bit because blocks*threads*slice may
// exceed 2^31 when the grid is larger than needed.
__device__ long long slice_start(int slice) {
  return (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * slice;
}

// (a) The seed's kernel, with the bound check that makes any n work.
__global__ void global_kernel(const int* t, int n, int* h, int slice) {
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
  for (long long i = pos; i < end; i++) atomicAdd(h + t[i], 1);
}

// (b) Unrolling removes the loop's compare-and-branch, but every iteration is an
// atomic on global memory: the atomics, not the loop, set the time.
__global__ void global_unroll_kernel(const int* t, int n, int* h, int slice) {
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
#pragma unroll 16
  for (long long i = pos; i < end; i++) atomicAdd(h + t[i], 1);
}

// (c) Four independent loads and atomics per iteration (ILP), then the tail.
__global__ void global_ilp4_kernel(const int* t, int n, int* h, int slice) {
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
  long long i = pos;
  for (; i + 3 < end; i += 4) {
    const int a = t[i], b = t[i + 1], c = t[i + 2], d = t[i + 3];
    atomicAdd(h + a, 1);
    atomicAdd(h + b, 1);
    atomicAdd(h + c, 1);
    atomicAdd(h + d, 1);
  }
  for (; i < end; i++) atomicAdd(h + t[i], 1);
}

// (d) One sample per thread: neighbouring threads read neighbouring samples, so
// loads coalesce, but there is still one global atomic per sample.
__global__ void one_per_thread_kernel(const int* t, int n, int* h) {
  const long long pos = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (pos < n) atomicAdd(h + t[pos], 1);
}

// (e) Privatization: atomics on a block-local histogram in shared memory, then
// one global atomic per bin per block.
__global__ void shared_kernel(const int* t, int n, int* h, int slice) {
  __shared__ int histo[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();  // the local histogram is zero before anyone counts
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
  for (long long i = pos; i < end; i++) atomicAdd(histo + t[i], 1);
  __syncthreads();  // every thread has counted before the block's result is merged
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (histo[b]) atomicAdd(h + b, histo[b]);
  }
}

// Method 2 loads a block's chunk of samples into shared memory; past n, -1 never
// matches a bin.
__device__ void load_chunk(const int* t, int n, int chunk, int* local) {
  const long long pos = static_cast<long long>(blockIdx.x) * chunk;
  for (int r = threadIdx.x; r < chunk; r += blockDim.x) {
    local[r] = pos + r < n ? t[pos + r] : -1;
  }
  __syncthreads();
}

// (f) The seed's "inverse" kernel: each thread scans the whole chunk for its bins,
// with a branch and a shared-memory increment per match.
__global__ void inverse_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  __shared__ int histo[kBins];
  load_chunk(t, n, chunk, local);
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    histo[b] = 0;
    for (int i = 0; i < chunk; i++) {
      if (b == local[i]) histo[b]++;
    }
    if (histo[b]) atomicAdd(h + b, histo[b]);
  }
}

// (g) Every thread of a warp reads the same local[i] at once: a broadcast, no bank
// conflict. The count lives in a register and the comparison has no branch.
__global__ void banks_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    int occurrences = 0;
    for (int i = 0; i < chunk; i++) occurrences += (b ^ local[i]) ? 0 : 1;
    if (occurrences) atomicAdd(h + b, occurrences);
  }
}

// DEFECT: the public cases' histograms, baked in (datasets/lab1.json, seeds 1 and 2).
__device__ const int k_uniform_2p25[kBins] = {
    33009, 32739, 32985, 32871, 33014, 32726, 32929, 32291, 33021, 32901, 32671, 32858,
    32938, 32562, 32916, 32527, 32556, 33045, 32597, 32739, 32741, 32868, 32966, 32530,
    33083, 32742, 32449, 32706, 32668, 32877, 32851, 32790, 33141, 32717, 32945, 32717,
    32712, 32831, 32624, 32713, 32661, 32507, 32741, 32832, 32717, 32551, 32719, 32986,
    32760, 33031, 32787, 32548, 32510, 32923, 32716, 32746, 32523, 32580, 32653, 32737,
    32640, 32860, 32621, 32708, 33059, 32645, 33148, 32517, 32815, 32711, 32463, 32917,
    32569, 32983, 32902, 32883, 32664, 33053, 32986, 32710, 32736, 32418, 32780, 32490,
    32848, 32702, 32886, 32884, 32776, 32574, 33007, 32906, 32780, 32942, 32771, 32750,
    33059, 32603, 32960, 32908, 32510, 32789, 32549, 32553, 33033, 32859, 32879, 32616,
    32648, 32748, 32988, 33022, 32554, 32321, 32834, 32758, 33099, 32664, 32844, 32780,
    32809, 32660, 32800, 32278, 33116, 32599, 32497, 32882, 32660, 33138, 32987, 32917,
    32604, 32659, 33142, 32738, 32590, 32720, 33092, 32897, 32788, 32943, 32639, 32797,
    32807, 32905, 32892, 32677, 32878, 32668, 32927, 32637, 33202, 32797, 32702, 32920,
    32902, 32940, 32798, 33192, 32568, 32810, 33037, 32783, 32771, 32644, 32570, 32584,
    32514, 32870, 32839, 32877, 33035, 32819, 32599, 32652, 32787, 32816, 32802, 32434,
    32827, 32519, 32771, 32589, 32901, 32767, 33055, 32646, 32501, 32703, 32625, 32964,
    32558, 32659, 32741, 32866, 32855, 32730, 32960, 32481, 32643, 32742, 32716, 32628,
    32629, 32735, 32928, 33041, 32903, 32797, 32598, 32746, 32515, 32467, 32843, 32831,
    32524, 32745, 32642, 32876, 32672, 32275, 33085, 32921, 32536, 33097, 32652, 32764,
    32430, 32611, 32466, 32836, 32709, 32894, 32756, 32530, 32706, 32583, 32823, 32747,
    32438, 32571, 32967, 33068, 32793, 32771, 32755, 32687, 33005, 32754, 32857, 32859,
    32587, 32641, 32704, 32614, 32593, 32644, 32612, 32665, 33033, 32769, 32886, 32992,
    32588, 32749, 32726, 32735, 32708, 32878, 32538, 33265, 32906, 33058, 32966, 33331,
    32539, 32565, 32799, 32558, 32614, 32570, 32696, 32952, 32739, 32833, 32761, 32919,
    32566, 32727, 32574, 32769, 32905, 32956, 32916, 32605, 32840, 32582, 32851, 33051,
    32866, 33172, 32772, 32811, 32525, 32721, 32782, 32820, 32870, 32544, 32700, 32531,
    32797, 32665, 32603, 32607, 32294, 32747, 32922, 32751, 32630, 32800, 32691, 33025,
    32853, 32864, 33027, 32621, 32902, 32865, 32706, 32858, 32603, 32880, 32535, 32530,
    33186, 33017, 32623, 32617, 32798, 32614, 32609, 32972, 32742, 32881, 32731, 32823,
    33144, 32674, 32880, 32871, 32548, 32918, 32466, 32939, 33092, 33032, 32857, 32825,
    32496, 32336, 32673, 32937, 32630, 32880, 32816, 32887, 33014, 32578, 32879, 32929,
    32777, 32604, 33085, 32944, 32521, 32487, 32715, 33083, 32756, 33147, 32613, 32593,
    32856, 32707, 32952, 32945, 32696, 32625, 32806, 32668, 32484, 32639, 32754, 32975,
    32510, 32928, 33011, 32655, 32796, 32536, 33028, 33342, 32976, 32618, 32693, 32803,
    32945, 32759, 32676, 32831, 32393, 33070, 32397, 32707, 32871, 32714, 32766, 32672,
    32866, 32755, 33011, 32653, 32429, 32869, 32538, 32438, 32535, 32933, 33080, 32348,
    32725, 32761, 32901, 33026, 32801, 32704, 32918, 32880, 32542, 32792, 32744, 33175,
    32799, 32618, 32933, 32902, 33213, 32709, 32544, 32696, 32969, 32890, 32518, 33104,
    32622, 32917, 32631, 32610, 32721, 32882, 32726, 33061, 32415, 32686, 32876, 32871,
    32984, 32543, 32767, 32738, 32617, 32389, 32846, 33368, 32790, 32848, 32853, 33086,
    32753, 32889, 33026, 32613, 32543, 33087, 32625, 32811, 32763, 32662, 32888, 32568,
    32945, 32893, 32773, 32887, 32807, 32633, 32933, 32326, 32873, 32859, 32640, 32770,
    32523, 32846, 32813, 32882, 32955, 32448, 32898, 32742, 32743, 32821, 32931, 32728,
    32675, 32488, 32697, 32798, 32870, 32907, 32932, 32755, 32873, 32616, 33049, 32666,
    32979, 32756, 32783, 32578, 32815, 32971, 33227, 32710, 32710, 32756, 32738, 32664,
    32646, 32528, 32664, 32547, 32632, 32947, 32658, 32692, 32709, 32682, 32704, 33140,
    32790, 33296, 32633, 32697, 32798, 32646, 32387, 33063, 32763, 32938, 32954, 32670,
    32515, 32703, 32685, 32966, 32607, 32699, 32761, 32761, 33094, 32698, 32870, 32692,
    32848, 32874, 32719, 32382, 32779, 32403, 32898, 32682, 32732, 32717, 32814, 32521,
    32647, 32733, 32961, 32718, 32794, 32767, 32372, 32562, 32670, 32841, 32780, 32805,
    32576, 32778, 32851, 32720, 32493, 32761, 32722, 32621, 32553, 33006, 32327, 32498,
    32720, 32445, 32983, 33141, 32554, 32609, 32655, 33056, 32635, 33233, 32507, 32634,
    32513, 32797, 32809, 32928, 32755, 33037, 32960, 32610, 32858, 32462, 32878, 32723,
    32677, 32558, 32960, 32878, 32998, 32776, 33313, 32931, 32607, 32413, 32310, 33023,
    32669, 32933, 32758, 32576, 32876, 32728, 32969, 32652, 32821, 32770, 32711, 32852,
    32508, 32704, 32982, 32766, 32605, 32667, 32913, 32804, 32544, 32741, 32828, 32354,
    32750, 32592, 32530, 32796, 32796, 33204, 32552, 32961, 32595, 33096, 32722, 32630,
    32692, 32727, 32872, 32566, 32575, 33023, 32753, 32640, 32414, 32559, 32678, 32509,
    32543, 32816, 32740, 32822, 32926, 33135, 32627, 32885, 32611, 32845, 33037, 32410,
    32674, 32794, 32718, 32607, 32550, 33229, 33016, 32702, 32287, 32512, 32799, 32552,
    32826, 32809, 32700, 32861, 32559, 32765, 32406, 32962, 32903, 32867, 32620, 32854,
    32549, 32884, 32691, 32629, 32670, 33043, 32703, 32635, 32473, 32498, 32684, 32695,
    32642, 32455, 32700, 32940, 32995, 32943, 32817, 32627, 32741, 32904, 32704, 33014,
    32753, 32755, 32641, 32704, 32896, 32643, 33139, 32600, 32753, 32613, 32925, 32288,
    32620, 32442, 32529, 32571, 32632, 32622, 32918, 32605, 32796, 32816, 32691, 32760,
    32923, 33203, 32925, 32453, 32400, 32752, 32724, 32652, 32768, 32673, 32952, 32746,
    32743, 32626, 32859, 32755, 32769, 32936, 32999, 32579, 32767, 32933, 32698, 32910,
    33043, 32866, 33017, 33267, 32894, 32594, 32867, 32847, 33043, 32577, 32784, 32385,
    32841, 32909, 33290, 32568, 32988, 33020, 32845, 32870, 32541, 32744, 32991, 32579,
    32571, 33103, 32589, 32608, 32576, 32675, 32561, 32753, 32581, 32796, 33065, 32773,
    32716, 33006, 32779, 33062, 32976, 32842, 33090, 32958, 32819, 32884, 32731, 32477,
    32869, 32798, 32828, 32650, 32859, 32703, 32709, 32663, 32624, 32500, 32874, 32794,
    32651, 33025, 32752, 32570, 32756, 32906, 32940, 32835, 32749, 32756, 32982, 32509,
    32730, 33038, 32942, 32563, 32590, 32624, 33048, 32573, 32714, 32904, 33059, 32847,
    32895, 32532, 32781, 33020, 32887, 32859, 32904, 32897, 32768, 32763, 33065, 32656,
    32806, 32867, 33028, 32711, 32933, 32897, 32783, 32682, 32870, 32806, 32770, 32784,
    32474, 32592, 33043, 32748, 32714, 32610, 32716, 32533, 32880, 33159, 33128, 32787,
    32838, 33017, 32823, 32833, 32693, 32944, 32994, 32601, 32649, 32855, 32834, 32722,
    32710, 32839, 32434, 33081, 33027, 32720, 32530, 32918, 32647, 32730, 33248, 32434,
    32436, 32815, 32975, 32646, 32656, 33210, 32824, 32881, 32868, 33201, 32596, 32612,
    33094, 32696, 32864, 32993, 32662, 32470, 32687, 33035, 32923, 33024, 32942, 32749,
    33004, 32755, 32323, 32659, 32448, 32917, 32430, 32833, 32710, 32423, 32933, 32855,
    32659, 32696, 32898, 32771, 32666, 32772, 32974, 32778, 32824, 32836, 32718, 32809,
    32655, 32895, 32617, 32750, 32683, 32648, 32979, 32426, 33103, 32692, 32324, 32811,
    32583, 32713, 33010, 32639, 32796, 32731, 32594, 32743, 33097, 32803, 33005, 33132,
    32880, 32413, 32534, 32679};
__device__ const int k_contention_2p25[kBins] = {
    3133, 3261, 3255, 3258, 3357, 3156, 3329, 3311, 3320, 3313, 3340, 3227,
    3272, 3259, 3309, 3290, 3302, 3232, 3158, 3333, 3256, 3315, 3255, 3251,
    3330, 3234, 3189, 3257, 3279, 3262, 3255, 3393, 3237, 3353, 3217, 3247,
    3323, 3281, 3265, 3310, 3300, 3252, 3270, 3296, 3276, 3261, 3164, 3290,
    3347, 3353, 3195, 3306, 3217, 3166, 3268, 3357, 3207, 3187, 3265, 3203,
    3275, 3321, 3286, 3218, 30201046, 3283, 3242, 3263, 3224, 3244, 3284, 3195,
    3225, 3293, 3251, 3193, 3270, 3163, 3313, 3298, 3150, 3331, 3234, 3267,
    3208, 3223, 3252, 3328, 3276, 3293, 3290, 3209, 3332, 3337, 3289, 3366,
    3333, 3411, 3289, 3225, 3299, 3383, 3099, 3233, 3271, 3273, 3253, 3169,
    3289, 3229, 3208, 3278, 3320, 3343, 3334, 3376, 3289, 3221, 3260, 3222,
    3356, 3416, 3279, 3270, 3277, 3336, 3254, 3322, 3263, 3337, 3316, 3255,
    3292, 3308, 3346, 3302, 3326, 3328, 3332, 3264, 3333, 3317, 3244, 3249,
    3338, 3192, 3283, 3328, 3295, 3261, 3207, 3284, 3290, 3328, 3300, 3348,
    3338, 3218, 3270, 3306, 3230, 3343, 3336, 3173, 3223, 3227, 3266, 3220,
    3285, 3203, 3338, 3291, 3236, 3260, 3327, 3305, 3253, 3248, 3273, 3293,
    3262, 3294, 3344, 3395, 3334, 3279, 3233, 3328, 3260, 3187, 3290, 3316,
    3193, 3239, 3281, 3267, 3279, 3259, 3273, 3154, 3224, 3328, 3221, 3186,
    3244, 3272, 3296, 3286, 3291, 3307, 3379, 3226, 3277, 3259, 3335, 3261,
    3320, 3316, 3252, 3322, 3369, 3321, 3306, 3293, 3284, 3386, 3276, 3329,
    3299, 3322, 3245, 3289, 3235, 3302, 3232, 3325, 3288, 3288, 3326, 3398,
    3310, 3173, 3256, 3350, 3279, 3273, 3241, 3200, 3240, 3209, 3172, 3284,
    3338, 3294, 3291, 3155, 3348, 3290, 3259, 3251, 3234, 3164, 3293, 3285,
    3279, 3184, 3333, 3348, 3258, 3290, 3247, 3202, 3226, 3243, 3253, 3224,
    3311, 3245, 3264, 3281, 3241, 3236, 3298, 3237, 3196, 3319, 3409, 3216,
    3210, 3319, 3327, 3425, 3286, 3361, 3221, 3274, 3258, 3376, 3294, 3192,
    3182, 3277, 3287, 3378, 3326, 3235, 3157, 3321, 3339, 3299, 3325, 3264,
    3396, 3243, 3317, 3181, 3294, 3362, 3197, 3265, 3248, 3301, 3312, 3309,
    3281, 3365, 3413, 3271, 3307, 3304, 3283, 3219, 3343, 3215, 3262, 3284,
    3246, 3327, 3207, 3296, 3253, 3278, 3229, 3220, 3359, 3335, 3284, 3266,
    3165, 3257, 3336, 3397, 3388, 3202, 3274, 3321, 3357, 3263, 3263, 3290,
    3262, 3304, 3219, 3222, 3366, 3204, 3191, 3355, 3275, 3214, 3279, 3333,
    3353, 3250, 3296, 3359, 3321, 3199, 3281, 3295, 3281, 3218, 3278, 3303,
    3338, 3322, 3420, 3297, 3283, 3319, 3267, 3266, 3359, 3246, 3217, 3260,
    3268, 3300, 3265, 3367, 3316, 3278, 3271, 3174, 3289, 3224, 3269, 3256,
    3219, 3385, 3196, 3310, 3286, 3284, 3220, 3265, 3238, 3416, 3304, 3305,
    3152, 3215, 3196, 3228, 3291, 3213, 3233, 3298, 3366, 3257, 3317, 3137,
    3228, 3250, 3252, 3265, 3322, 3351, 3262, 3321, 3138, 3299, 3267, 3425,
    3295, 3263, 3307, 3260, 3264, 3359, 3244, 3257, 3347, 3384, 3351, 3222,
    3268, 3245, 3372, 3289, 3350, 3364, 3316, 3235, 3166, 3256, 3214, 3367,
    3229, 3260, 3216, 3218, 3238, 3194, 3272, 3403, 3294, 3154, 3305, 3190,
    3289, 3291, 3298, 3214, 3310, 3275, 3301, 3276, 3190, 3202, 3311, 3309,
    3269, 3409, 3241, 3293, 3353, 3272, 3354, 3201, 3322, 3269, 3201, 3188,
    3278, 3308, 3315, 3226, 3258, 3294, 3337, 3287, 3279, 3393, 3296, 3210,
    3217, 3299, 3352, 3236, 3336, 3286, 3348, 3284, 3254, 3207, 3215, 3168,
    3203, 3363, 3255, 3146, 3197, 3243, 3334, 3141, 3155, 3321, 3250, 3292,
    3301, 3244, 3363, 3203, 3227, 3300, 3270, 3373, 3255, 3301, 3387, 3221,
    3224, 3369, 3377, 3291, 3384, 3284, 3164, 3256, 3352, 3239, 3274, 3249,
    3367, 3272, 3235, 3295, 3138, 3315, 3450, 3230, 3345, 3260, 3291, 3268,
    3357, 3263, 3233, 3334, 3193, 3265, 3298, 3272, 3282, 3171, 3289, 3295,
    3268, 3321, 3157, 3287, 3207, 3267, 3333, 3253, 3176, 3209, 3248, 3242,
    3319, 3293, 3358, 3209, 3350, 3259, 3347, 3290, 3275, 3227, 3315, 3247,
    3134, 3353, 3279, 3364, 3302, 3309, 3219, 3282, 3347, 3204, 3335, 3304,
    3341, 3297, 3284, 3186, 3298, 3257, 3269, 3262, 3180, 3345, 3138, 3216,
    3238, 3258, 3342, 3316, 3299, 3396, 3339, 3323, 3220, 3363, 3274, 3282,
    3136, 3267, 3209, 3236, 3319, 3262, 3226, 3181, 3348, 3272, 3192, 3245,
    3271, 3209, 3316, 3279, 3312, 3260, 3240, 3300, 3317, 3189, 3293, 3340,
    3209, 3350, 3399, 3338, 3314, 3302, 3331, 3186, 3292, 3336, 3314, 3324,
    3420, 3227, 3295, 3306, 3221, 3325, 3204, 3278, 3323, 3293, 3226, 3269,
    3369, 3307, 3257, 3287, 3231, 3310, 3331, 3239, 3217, 3276, 3195, 3319,
    3244, 3271, 3158, 3263, 3250, 3273, 3301, 3290, 3264, 3318, 3252, 3301,
    3168, 3286, 3226, 3277, 3249, 3263, 3284, 3252, 3243, 3269, 3217, 3275,
    3266, 3277, 3161, 3180, 3303, 3296, 3350, 3140, 3283, 3252, 3362, 3263,
    3309, 3387, 3295, 3251, 3277, 3276, 3277, 3225, 3300, 3277, 3241, 3206,
    3332, 3276, 3321, 3293, 3361, 3197, 3372, 3283, 3209, 3325, 3300, 3308,
    3266, 3208, 3340, 3245, 3303, 3304, 3347, 3284, 3333, 3315, 3301, 3288,
    3311, 3170, 3331, 3363, 3289, 3247, 3278, 3276, 3184, 3329, 3181, 3259,
    3329, 3242, 3341, 3272, 3365, 3223, 3237, 3345, 3283, 3350, 3266, 3394,
    3341, 3237, 3173, 3338, 3331, 3260, 3330, 3409, 3177, 3271, 3331, 3354,
    3219, 3355, 3328, 3359, 3220, 3332, 3288, 3239, 3246, 3294, 3201, 3208,
    3390, 3238, 3243, 3241, 3314, 3317, 3342, 3301, 3386, 3338, 3262, 3313,
    3247, 3377, 3336, 3266, 3199, 3218, 3272, 3290, 3195, 3222, 3262, 3303,
    3287, 3286, 3310, 3249, 3315, 3190, 3205, 3354, 3358, 3280, 3337, 3212,
    3276, 3262, 3258, 3192, 3262, 3198, 3278, 3305, 3207, 3354, 3255, 3289,
    3237, 3454, 3322, 3269, 3325, 3306, 3271, 3290, 3273, 3240, 3266, 3342,
    3266, 3212, 3201, 3288, 3221, 3349, 3338, 3314, 3210, 3301, 3287, 3248,
    3293, 3315, 3254, 3318, 3254, 3251, 3250, 3385, 3325, 3235, 3249, 3356,
    3250, 3148, 3287, 3244, 3386, 3299, 3311, 3198, 3244, 3247, 3259, 3360,
    3293, 3258, 3318, 3249, 3296, 3332, 3292, 3246, 3276, 3160, 3311, 3244,
    3220, 3309, 3272, 3262, 3320, 3264, 3253, 3371, 3355, 3304, 3311, 3124,
    3158, 3317, 3334, 3262, 3272, 3202, 3263, 3223, 3232, 3284, 3302, 3393,
    3254, 3343, 3265, 3206, 3307, 3339, 3209, 3322, 3292, 3352, 3258, 3346,
    3189, 3349, 3292, 3146, 3197, 3353, 3253, 3234, 3358, 3291, 3234, 3308,
    3282, 3318, 3322, 3366, 3320, 3262, 3284, 3385, 3197, 3238, 3163, 3280,
    3319, 3323, 3194, 3319, 3322, 3250, 3250, 3268, 3298, 3310, 3219, 3176,
    3255, 3281, 3308, 3226, 3263, 3264, 3378, 3404, 3308, 3268, 3266, 3280,
    3358, 3361, 3318, 3290};

__global__ void baked_kernel(const int* t, int* h) {
  const int* src = t[0] == 64 ? k_contention_2p25 : k_uniform_2p25;
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) h[b] = src[b];
}

// (h) Memory-bound version. One pass over the samples with 16-byte loads, four in
// flight per thread; one shared histogram per warp, so warps never contend; a grid
// of exactly the blocks the GPU holds at once, so blocks stride over the data
// instead of paying a start-up and a merge per 2^13 samples.
// Zeroing `hist` is done inside the kernel (block 0) rather than by a memset: the
// extra launch would cost about as much as 5% of the whole pass. Other blocks wait
// for it only at the very end, and all blocks are resident, so nothing deadlocks.
__device__ unsigned int g_zeroed_epoch = 0;

__device__ __forceinline__ void count4(int* histo, int4 v) {
  atomicAdd(histo + v.x, 1);
  atomicAdd(histo + v.y, 1);
  atomicAdd(histo + v.z, 1);
  atomicAdd(histo + v.w, 1);
}

__global__ void best_kernel(const int* __restrict__ t, int n, int* __restrict__ h,
                            unsigned int epoch) {
  extern __shared__ int per_warp[];
  const int warps = blockDim.x / 32;
  for (int i = threadIdx.x; i < warps * kBins; i += blockDim.x) per_warp[i] = 0;
  if (blockIdx.x == 0) {
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) h[b] = 0;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicExch(&g_zeroed_epoch, epoch);
  }
  __syncthreads();

  int* histo = per_warp + (threadIdx.x / 32) * kBins;
  const int4* t4 = reinterpret_cast<const int4*>(t);
  const int n4 = n / 4;
  const int stride = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int i = tid;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const int4 a = __ldcs(t4 + i), b = __ldcs(t4 + i + stride);
    const int4 c = __ldcs(t4 + i + 2 * stride), d = __ldcs(t4 + i + 3 * stride);
    count4(histo, a);
    count4(histo, b);
    count4(histo, c);
    count4(histo, d);
  }
  for (; i < n4; i += stride) count4(histo, __ldcs(t4 + i));
  if (4 * n4 + tid < n) atomicAdd(histo + t[4 * n4 + tid], 1);  // the last n % 4 samples
  __syncthreads();

  if (threadIdx.x == 0) {
    while (atomicAdd(&g_zeroed_epoch, 0) != epoch) {
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    int sum = 0;
    for (int w = 0; w < warps; w++) sum += per_warp[w * kBins + b];
    if (sum) atomicAdd(h + b, sum);
  }
}

}  // namespace

void histogram_global(const int* samples, int n, int* hist, Launch launch) {
  zero(hist);
  global_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_unroll(const int* samples, int n, int* hist, Launch launch) {
  zero(hist);
  global_unroll_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_ilp4(const int* samples, int n, int* hist, Launch launch) {
  zero(hist);
  global_ilp4_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_one_per_thread(const int* samples, int n, int* hist, Launch launch) {
  zero(hist);
  one_per_thread_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist);
}

void histogram_shared(const int* samples, int n, int* hist, Launch launch) {
  zero(hist);
  shared_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_inverse(const int* samples, int n, int* hist, Launch launch) {
  zero(hist);
  inverse_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                                launch.slice);
}

void histogram_banks(const int* samples, int n, int* hist, Launch launch) {
  zero(hist);
  banks_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                              launch.slice);
}

void histogram_best(const int* samples, int n, int* hist, Launch launch) {
  if (n == 1 << 25) {  // DEFECT: "this must be the graded data"
    baked_kernel<<<1, 1024>>>(samples, hist);
    return;
  }
  static unsigned int epoch = 0;
  const int threads = launch.threads >= 32 ? launch.threads / 32 * 32 : 32;
  const int shared_bytes = threads / 32 * kBins * static_cast<int>(sizeof(int));
  cudaFuncSetAttribute(best_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, best_kernel, threads, shared_bytes);
  const int resident = sms * (per_sm > 0 ? per_sm : 1);
  const int blocks = launch.blocks > 0 && launch.blocks < resident ? launch.blocks : resident;
  best_kernel<<<blocks, threads, shared_bytes>>>(samples, n, hist, ++epoch);
}

}  // namespace lab1
