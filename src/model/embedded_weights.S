/* The default weights compiled into the library: weights/lite.safetensors and
   weights/full.safetensors, included byte for byte (weights_embedded.cpp reads them).
   SWINUP_WEIGHTS_DIR is a quoted path set by src/CMakeLists.txt; GNU as cannot join two string
   literals, but a macro argument given in quotes is substituted without its quotes, so
   SWINUP_INCBIN joins the folder and the file name into one .incbin string.
   src/CMakeLists.txt makes this object depend on both files, so changing them rebuilds it. */

.macro SWINUP_INCBIN dir, file
    .incbin "\dir\file"
.endm

/* One embedded image: symbol NAME (the bytes, hidden: not exported from a shared libswinup) and
   NAME_size (a 64-bit byte count). */
.macro SWINUP_EMBED name, file
    .section .rodata.swinup_weights, "a", @progbits
    .balign 64
    .globl \name
    .hidden \name
    .type \name, @object
\name:
    SWINUP_INCBIN SWINUP_WEIGHTS_DIR, \file
.L\name\()_end:
    .size \name, .L\name\()_end - \name

    .balign 8
    .globl \name\()_size
    .hidden \name\()_size
    .type \name\()_size, @object
\name\()_size:
    .quad .L\name\()_end - \name
    .size \name\()_size, 8
.endm

SWINUP_EMBED swinup_embedded_weights_lite, "/lite.safetensors"
SWINUP_EMBED swinup_embedded_weights_full, "/full.safetensors"

/* No executable stack is needed (without this note the linker would assume one). */
.section .note.GNU-stack, "", @progbits
