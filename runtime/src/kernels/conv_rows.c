/* The copy of a task's input rows that the broadcasting direct
 * convolutions (conv_bcast_avx512.c, conv_bcast_avx2.c) read their input
 * elements from: the rows that a block of output rows reaches, each with
 * pad_left zero columns before and zeros after, and rows in the top or
 * bottom padding all zeros. With every window's reach inside the copy, the
 * kernels need no bounds checks, and a tile over positions of several
 * output rows can run the kernel rows of all of them. */
#include "kernels_internal.h"

#include <string.h>

/* The columns of a copied row: a multiple of 16, so vector loads of whole
 * rows stay inside. */
static int64_t copy_width(const agl_conv_direct *d) {
  int64_t width =
      (d->out_w - 1) * d->stride_w + (d->kernel_w - 1) * d->dilation_w + 1;
  if (width < d->pad_left + d->in_w)
    width = d->pad_left + d->in_w;
  return (width + 15) / 16 * 16;
}

/* The input rows that `rows` output rows reach, padding rows included. */
static int64_t copy_rows(const agl_conv_direct *d, int64_t rows) {
  return (rows - 1) * d->stride_h + (d->kernel_h - 1) * d->dilation_h + 1;
}

int64_t agl_conv_bcast_floats(const agl_conv_direct *d, int64_t rows) {
  return d->in_channels * copy_rows(d, rows) * copy_width(d);
}

void agl_conv_live_kernel_rows(const agl_conv_direct *d, int64_t oy,
                               int64_t *lo, int64_t *hi) {
  const int64_t dh = d->dilation_h;
  const int64_t y0 = oy * d->stride_h - d->pad_top;
  *lo = y0 >= 0 ? 0 : (-y0 + dh - 1) / dh;
  *hi = d->in_h - y0 <= 0 ? 0 : (d->in_h - y0 + dh - 1) / dh;
  if (*hi > d->kernel_h)
    *hi = d->kernel_h;
  if (*hi < *lo)
    *hi = *lo;
}

/* What the calling thread's packing memory holds: the rows of which call,
 * image, group and output rows (call 0: nothing known). */
static _Thread_local struct {
  uint64_t call;
  int64_t n, g, oy0, oy1;
} t_copied;

const float *agl_conv_copy_rows(const agl_conv_direct *d, int64_t n, int64_t g,
                                int64_t oy0, int64_t oy1, int64_t *row_floats,
                                int64_t *plane_floats) {
  float *scratch = agl_pool_scratch();
  const int64_t iy_first = oy0 * d->stride_h - d->pad_top;
  const int64_t nrows = copy_rows(d, oy1 - oy0);
  const int64_t width = copy_width(d);
  if (!scratch || d->in_channels * nrows * width > (int64_t)AGL_SCRATCH_FLOATS)
    return NULL;
  const float *image = d->input + n * d->in_batch_stride + g * d->group_stride;
  const int64_t copy =
      d->in_w < width - d->pad_left ? d->in_w : width - d->pad_left;
  /* Tasks of one call that share output rows (filter chunks) copy once per
   * thread. */
  if (t_copied.call != d->call || t_copied.n != n || t_copied.g != g ||
      t_copied.oy0 != oy0 || t_copied.oy1 != oy1) {
    for (int64_t c = 0; c < d->in_channels; ++c)
      for (int64_t r = 0; r < nrows; ++r) {
        float *dst = scratch + (c * nrows + r) * width;
        const int64_t iy = iy_first + r;
        if (iy < 0 || iy >= d->in_h) {
          memset(dst, 0, (size_t)width * sizeof(float));
          continue;
        }
        const float *src = image + c * d->channel_stride + iy * d->row_stride;
        memset(dst, 0, (size_t)d->pad_left * sizeof(float));
        memcpy(dst + d->pad_left, src, (size_t)copy * sizeof(float));
        memset(dst + d->pad_left + copy, 0,
               (size_t)(width - d->pad_left - copy) * sizeof(float));
      }
    t_copied.call = d->call;
    t_copied.n = n;
    t_copied.g = g;
    t_copied.oy0 = oy0;
    t_copied.oy1 = oy1;
  }
  *row_floats = width;
  *plane_floats = nrows * width;
  return scratch - iy_first * width;
}
