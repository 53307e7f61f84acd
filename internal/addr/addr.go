// Package addr is the one place where the compiled plans of bind,
// validate, respond and codec read and write memory without the type
// system's help.
//
// A plan is compiled once per Go type with reflect: for each field it
// keeps the field's offset in its struct, its type and the function that
// reads or writes it. At request time the plan walks a value of that type
// through an [Addr], the address of the value or of one of its fields.
// Every operation below is unchecked, and each is correct under one rule,
// which the compiler of each plan keeps:
//
//   - an Addr holds the address of a value of the type the plan node that
//     receives it was compiled for (or is nil where that type is a pointer
//     or a map that is nil);
//   - Field is given an offset that reflect reported for a field of that
//     type, and Index an index below the length of the slice or array it
//     was read from, with the element size reflect reported;
//   - As, Deref and SetPointer are used at the type reflect reported (a
//     pointer, a map or a slice header for Deref, SetPointer and Slice).
//
// Outside this file no package of the plans imports unsafe: a wrong
// reinterpretation has to be written as a call here (As, Field, Index,
// Deref, Slice), which grep finds. Why the plans read fields by offset
// rather than through reflect: docs/design/2026-11-27-unsafe.md.
package addr

import (
	"reflect"
	"unsafe"
)

// Addr is the address of a value of the type a plan was compiled for.
// The zero Addr is nil.
type Addr struct{ p unsafe.Pointer }

// Of returns the address of *v.
func Of[T any](v *T) Addr { return Addr{unsafe.Pointer(v)} }

// OfValue returns the address a reflect.Value of a pointer, map or slice
// holds (reflect.Value.UnsafePointer).
func OfValue(v reflect.Value) Addr { return Addr{v.UnsafePointer()} }

// OfPointer returns the pointer the interface value ptr holds; ptr's
// dynamic type must be a pointer type, which the caller has checked (an
// interface holds a pointer in its second word). It is OfValue of
// reflect.ValueOf(ptr) without reflect's checks of the kind.
//
// unsafe: kept by bench's Typed/Param row (bind, validate and respond
// each take the input or output as an any: reflect's path cost about 60
// instructions a call, this one 2).
func OfPointer(ptr any) Addr { return Addr{(*[2]unsafe.Pointer)(unsafe.Pointer(&ptr))[1]} }

// IsNil reports whether a is nil.
func (a Addr) IsNil() bool { return a.p == nil }

// Field returns the address off bytes into the value at a: a field's,
// with off its reflect.StructField.Offset.
func (a Addr) Field(off uintptr) Addr { return Addr{unsafe.Add(a.p, off)} }

// Index returns the address of element i of the array whose first
// element is at a and whose elements are size bytes long.
func (a Addr) Index(i int, size uintptr) Addr { return Addr{unsafe.Add(a.p, uintptr(i)*size)} }

// Deref returns the pointer (or map) stored at a.
func (a Addr) Deref() Addr { return Addr{*(*unsafe.Pointer)(a.p)} }

// SetPointer stores the pointer b at a, which holds a pointer.
func (a Addr) SetPointer(b Addr) { *(*unsafe.Pointer)(a.p) = b.p }

// Slice returns the address of the first element and the length of the
// slice at a, of any element type: every slice header has the layout of
// a []byte's.
func (a Addr) Slice() (Addr, int) {
	s := *(*[]byte)(a.p)
	return Addr{unsafe.Pointer(unsafe.SliceData(s))}, len(s)
}

// As returns a as a *T: the value at a must be a T.
func As[T any](a Addr) *T { return (*T)(a.p) }

// Value returns the value of type t at a, addressable (reflect.NewAt).
func (a Addr) Value(t reflect.Type) reflect.Value { return reflect.NewAt(t, a.p).Elem() }
