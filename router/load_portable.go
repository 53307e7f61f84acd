//go:build !(amd64 || arm64)

package router

import (
	"encoding/binary"
	"unsafe"
)

// Little-endian loads of 8, 4 and 2 bytes from p, byte by byte where the
// CPU may not load unaligned words or is big-endian (load_unaligned.go has
// the fast form). The caller guarantees the bytes are readable.

func load64(p unsafe.Pointer) uint64 { return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(p), 8)) }
func load32(p unsafe.Pointer) uint32 { return binary.LittleEndian.Uint32(unsafe.Slice((*byte)(p), 4)) }
func load16(p unsafe.Pointer) uint16 { return binary.LittleEndian.Uint16(unsafe.Slice((*byte)(p), 2)) }
