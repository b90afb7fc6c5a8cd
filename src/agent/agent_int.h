/*
 * agent_int.h: what the files of src/agent/ share and nobody else needs:
 * the opcode numbers and the printf formatter.
 */
#ifndef UTRACED_AGENT_INT_H
#define UTRACED_AGENT_INT_H

#include "agent.h"

/* Opcode values, as numbered in the GDB manual's "Bytecode Descriptions". */
enum agent_op {
	AGENT_OP_FLOAT = 0x01,
	AGENT_OP_ADD = 0x02,
	AGENT_OP_SUB = 0x03,
	AGENT_OP_MUL = 0x04,
	AGENT_OP_DIV_SIGNED = 0x05,
	AGENT_OP_DIV_UNSIGNED = 0x06,
	AGENT_OP_REM_SIGNED = 0x07,
	AGENT_OP_REM_UNSIGNED = 0x08,
	AGENT_OP_LSH = 0x09,
	AGENT_OP_RSH_SIGNED = 0x0a,
	AGENT_OP_RSH_UNSIGNED = 0x0b,
	AGENT_OP_TRACE = 0x0c,
	AGENT_OP_TRACE_QUICK = 0x0d,
	AGENT_OP_LOG_NOT = 0x0e,
	AGENT_OP_BIT_AND = 0x0f,
	AGENT_OP_BIT_OR = 0x10,
	AGENT_OP_BIT_XOR = 0x11,
	AGENT_OP_BIT_NOT = 0x12,
	AGENT_OP_EQUAL = 0x13,
	AGENT_OP_LESS_SIGNED = 0x14,
	AGENT_OP_LESS_UNSIGNED = 0x15,
	AGENT_OP_EXT = 0x16,
	AGENT_OP_REF8 = 0x17,
	AGENT_OP_REF16 = 0x18,
	AGENT_OP_REF32 = 0x19,
	AGENT_OP_REF64 = 0x1a,
	AGENT_OP_REF_FLOAT = 0x1b,
	AGENT_OP_REF_DOUBLE = 0x1c,
	AGENT_OP_REF_LONG_DOUBLE = 0x1d,
	AGENT_OP_L_TO_D = 0x1e,
	AGENT_OP_D_TO_L = 0x1f,
	AGENT_OP_IF_GOTO = 0x20,
	AGENT_OP_GOTO = 0x21,
	AGENT_OP_CONST8 = 0x22,
	AGENT_OP_CONST16 = 0x23,
	AGENT_OP_CONST32 = 0x24,
	AGENT_OP_CONST64 = 0x25,
	AGENT_OP_REG = 0x26,
	AGENT_OP_END = 0x27,
	AGENT_OP_DUP = 0x28,
	AGENT_OP_POP = 0x29,
	AGENT_OP_ZERO_EXT = 0x2a,
	AGENT_OP_SWAP = 0x2b,
	AGENT_OP_GETV = 0x2c,
	AGENT_OP_SETV = 0x2d,
	AGENT_OP_TRACEV = 0x2e,
	AGENT_OP_TRACENZ = 0x2f,
	AGENT_OP_TRACE16 = 0x30,
	/* 0x31 is "invalid2" in gdb's table: never valid. */
	AGENT_OP_PICK = 0x32,
	AGENT_OP_ROT = 0x33,
	AGENT_OP_PRINTF = 0x34,
};

/*
 * Format fmt[0..fmtlen) (the printf opcode's string, C escapes still in
 * it, NUL excluded) with args[0..nargs) into out[0..outmax), reading %s
 * strings through env->read_mem. Stores the text length in *outlen; text
 * beyond outmax is dropped. Returns 0, -EINVAL (bad format, wrong number
 * of arguments), -EOPNOTSUPP (floating point, wide characters, %n) or a
 * read_mem error.
 */
int agent_format(const struct agent_env *env, const char *fmt, size_t fmtlen, const uint64_t *args,
		 size_t nargs, char *out, size_t outmax, size_t *outlen);

#endif
