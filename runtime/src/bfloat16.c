/* __truncsfbf2, the compiler runtime's float -> bfloat16 conversion, which
 * LLVM calls wherever the target CPU has no bfloat16 conversion
 * instruction (AVX512_BF16, AVX-NE-CONVERT) for what it cannot expand
 * inline: arithmetic on bf16 values, computed in float and rounded back,
 * maxima and reductions. libgcc before GCC 13 lacks it, so the runtime
 * provides it to the models it loads and links.
 *
 * Rounds to nearest even; NaN stays NaN (quiet, sign and the top payload
 * bits kept). The x86-64 psABI passes the float in xmm0 and returns the
 * bf16 in the low 16 bits of xmm0, which C compilers without a __bf16 type
 * cannot express, hence the assembly. */
#if defined(__x86_64__) && defined(__ELF__)
__asm__(".text\n"
        ".globl __truncsfbf2\n"
        ".type __truncsfbf2, @function\n"
        ".p2align 4\n"
        "__truncsfbf2:\n"
        "  movd %xmm0, %eax\n"
        "  movl %eax, %ecx\n"
        "  andl $0x7fffffff, %ecx\n"
        "  cmpl $0x7f800000, %ecx\n"
        "  ja 1f\n"
        /* bits + 0x7fff + (bit 16): a tie rounds to the even result. */
        "  movl %eax, %ecx\n"
        "  shrl $16, %ecx\n"
        "  andl $1, %ecx\n"
        "  leal 0x7fff(%eax,%ecx), %eax\n"
        "  shrl $16, %eax\n"
        "  movd %eax, %xmm0\n"
        "  ret\n"
        "1:\n"
        "  shrl $16, %eax\n"
        "  orl $0x40, %eax\n"
        "  movd %eax, %xmm0\n"
        "  ret\n"
        ".size __truncsfbf2, .-__truncsfbf2\n");
#else
typedef int agl_no_bfloat16_helper; /* not an empty translation unit */
#endif
