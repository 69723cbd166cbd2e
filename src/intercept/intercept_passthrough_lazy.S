/*
 * The pass-through trampolines' first call (see intercept_passthrough.h):
 * entered from lazy stub i with i in %r11 and the caller's arguments still
 * in their registers. Saves every register that can carry an argument
 * (%rax too: it carries the vector-register count of a variadic call),
 * asks gg_icpt_pass_resolve(i) for the real function, restores them and
 * jumps there, so the real function sees the original call.
 */
	.text
	.globl gg_icpt_pass_lazy
	.hidden gg_icpt_pass_lazy
	.hidden gg_icpt_pass_resolve
	.type gg_icpt_pass_lazy, @function
	.p2align 4
gg_icpt_pass_lazy:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq %rdi
	pushq %rsi
	pushq %rdx
	pushq %rcx
	pushq %r8
	pushq %r9
	pushq %rax
	/* 7 pushes after %rbp leave %rsp 8 off 16: 136 more align it for the call. */
	subq $136, %rsp
	movdqu %xmm0, 0(%rsp)
	movdqu %xmm1, 16(%rsp)
	movdqu %xmm2, 32(%rsp)
	movdqu %xmm3, 48(%rsp)
	movdqu %xmm4, 64(%rsp)
	movdqu %xmm5, 80(%rsp)
	movdqu %xmm6, 96(%rsp)
	movdqu %xmm7, 112(%rsp)
	movq %r11, %rdi
	call gg_icpt_pass_resolve
	movq %rax, %r11
	movdqu 0(%rsp), %xmm0
	movdqu 16(%rsp), %xmm1
	movdqu 32(%rsp), %xmm2
	movdqu 48(%rsp), %xmm3
	movdqu 64(%rsp), %xmm4
	movdqu 80(%rsp), %xmm5
	movdqu 96(%rsp), %xmm6
	movdqu 112(%rsp), %xmm7
	addq $136, %rsp
	popq %rax
	popq %r9
	popq %r8
	popq %rcx
	popq %rdx
	popq %rsi
	popq %rdi
	popq %rbp
	.cfi_def_cfa %rsp, 8
	jmp *%r11
	.cfi_endproc
	.size gg_icpt_pass_lazy, .-gg_icpt_pass_lazy
	.section .note.GNU-stack,"",@progbits
