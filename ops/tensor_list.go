package ops

import (
	"fmt"
	"unsafe"
)

// TensorList values (TensorFlow's TensorList, the variant a Flex
// TensorList* operator reads and writes) live in a store the
// interpreter keeps, one per root interpreter and shared by the
// subgraphs it runs, as its resource variables are. A tensor of type
// Variant holds a 4-byte handle into that store (an int32, as a
// Resource tensor holds a variable id), so lists pass through WHILE and
// IF as loop-carried values by copying the handle. Handles are valid for
// one Invoke: the store forgets every list at the start of the next one
// (keeping the memory for reuse, so a model whose lists keep their sizes
// allocates nothing once warm), and when the interpreter allocates
// again.
//
// Lists have value semantics, as in TensorFlow: a SetItem makes a new
// list, except where the writer proves nothing else can see the old
// value (TensorFlow forwards an input list with a reference count of
// one in the same way); see TensorList.Owner.

// ListSource gives kernels an interpreter's TensorList store and the use
// counts of a node's tensors that decide whether a list may be written
// in place. The interpreter implements it.
type ListSource interface {
	// TensorLists returns the interpreter's store.
	TensorLists() *TensorLists
	// Uses reports how many operators of t's subgraph read t and how
	// many times t is an output of that subgraph.
	Uses(t *Tensor) (readers, outputs int)
}

// MaxTensorLists is the most lists one Invoke may create: handles keep
// the list index in their low 24 bits.
const MaxTensorLists = 1<<24 - 1

// TensorList is one list value: NumElements items of type ElemType, each
// of the shape ItemShape once an item is set or the element shape is
// fully defined (tflrun keeps one shape for all the items of a list, so
// that they sit in one buffer; TensorFlow allows items of different
// shapes compatible with ElemShape, and the kernels refuse those with an
// error naming the shapes).
type TensorList struct {
	// ElemType is the element_dtype.
	ElemType DataType
	// ElemShape is the list's element_shape: nil for an unknown rank, -1
	// for an unknown dimension.
	ElemShape []int
	// ItemShape is the shape of every item (nil until known).
	ItemShape []int
	// Owner is the kernel that made this list and may write it in place
	// (nil: nobody; the value may be shared).
	Owner any

	elemBuf, itemBuf []int // the shapes' storage, reused

	n         int
	itemBytes int
	set       []bool // grow-only storage; set[:n] are the items' flags
	data      []byte // grow-only storage; data[:n*itemBytes] the items
}

// NumElements is the list's length.
func (l *TensorList) NumElements() int { return l.n }

// IsSet reports whether item i was set (an unset item reads as zeros).
func (l *TensorList) IsSet(i int) bool { return l.set[i] }

// Item returns the bytes of item i (len ItemBytes; zeros when unset), or
// nil when the item shape is not known yet.
func (l *TensorList) Item(i int) []byte {
	if l.ItemShape == nil {
		return nil
	}
	return l.data[i*l.itemBytes : (i+1)*l.itemBytes : (i+1)*l.itemBytes]
}

// ItemBytes is the size of one item in bytes (0 until the shape is known).
func (l *TensorList) ItemBytes() int { return l.itemBytes }

// TensorLists is an interpreter's store of TensorList values for one
// Invoke. Its memory is charged to the interpreter's memory bound before
// it is allocated; it only grows, and Reset keeps it for the next run.
type TensorLists struct {
	budget *MemoryBudget
	lists  []TensorList
	live   int
	epoch  int32 // 1..127, the top bits of this run's handles
}

// NewTensorLists returns an empty store charging budget (nil: no bound).
func NewTensorLists(budget *MemoryBudget) *TensorLists {
	return &TensorLists{budget: budget, epoch: 1}
}

// Reset forgets every list (their handles become invalid) and keeps
// their memory for reuse.
func (s *TensorLists) Reset() {
	s.live = 0
	s.epoch = s.epoch%127 + 1
}

// Live is the number of lists made since the last Reset.
func (s *TensorLists) Live() int { return s.live }

func (s *TensorLists) handle(i int) int32 { return s.epoch<<24 | int32(i+1) }

// Get returns the list of handle h, or an error for a handle this run
// did not make (zero: a variant tensor no list operator wrote; a handle
// of a previous Invoke; garbage).
func (s *TensorLists) Get(h int32) (*TensorList, error) {
	if h == 0 {
		return nil, fmt.Errorf("the variant tensor holds no TensorList (no list operator wrote it in this Invoke)")
	}
	i := int(h&(1<<24-1)) - 1
	if h>>24 != s.epoch || i < 0 || i >= s.live {
		return nil, fmt.Errorf("the variant tensor holds %#x, not a TensorList of this Invoke", uint32(h))
	}
	return &s.lists[i], nil
}

// Freeze drops the owner of the list of handle h (when h is a list of
// this run), so that the next write copies it: control flow calls it on
// the lists entering a subgraph, which may still be read outside.
func (s *TensorLists) Freeze(h int32) {
	if l, err := s.Get(h); err == nil {
		l.Owner = nil
	}
}

// New makes a list of num unset items of type elemType and element shape
// elemShape (nil: unknown rank, -1: unknown dimension), owned by owner,
// and returns its handle. It fails, allocating nothing, when the list
// would exceed the memory bound (a hostile num_elements) or the store
// is full.
func (s *TensorLists) New(elemType DataType, elemShape []int, num int, owner any) (int32, *TensorList, error) {
	if num < 0 {
		return 0, nil, fmt.Errorf("num_elements %d is negative", num)
	}
	if elemType.Size() == 0 {
		return 0, nil, fmt.Errorf("element type %s is not supported in a TensorList", elemType)
	}
	if s.live >= MaxTensorLists {
		return 0, nil, fmt.Errorf("more than %d TensorLists in one Invoke", MaxTensorLists)
	}
	if s.live == len(s.lists) {
		if err := s.budget.Reserve(int64(unsafe.Sizeof(TensorList{})), "a TensorList"); err != nil {
			return 0, nil, err
		}
		s.lists = append(s.lists, TensorList{})
	}
	l := &s.lists[s.live]
	l.ElemType, l.Owner, l.n, l.itemBytes = elemType, owner, 0, 0
	l.ElemShape, l.elemBuf = setShape(l.elemBuf, elemShape)
	l.ItemShape = nil
	if FullyDefined(elemShape) {
		l.ItemShape, l.itemBuf = setShape(l.itemBuf, elemShape)
	}
	if err := s.resize(l, num); err != nil {
		return 0, nil, err
	}
	s.live++
	return s.handle(s.live - 1), l, nil
}

// Copy makes a new list equal to the list of handle h, owned by owner.
func (s *TensorLists) Copy(h int32, owner any) (int32, *TensorList, error) {
	src, err := s.Get(h)
	if err != nil {
		return 0, nil, err
	}
	si := int(h&(1<<24-1)) - 1
	nh, l, err := s.New(src.ElemType, src.ElemShape, 0, owner)
	if err != nil {
		return 0, nil, err
	}
	src = &s.lists[si] // New may have moved the slots
	if src.ItemShape != nil {
		l.ItemShape, l.itemBuf = setShape(l.itemBuf, src.ItemShape)
	}
	if err := s.resize(l, src.n); err != nil {
		s.live--
		return 0, nil, err
	}
	copy(l.set, src.set[:src.n])
	copy(l.data, src.data[:src.n*src.itemBytes])
	return nh, l, nil
}

// Resize sets the list's length to num: new items are unset, items past
// num are dropped.
func (s *TensorLists) Resize(l *TensorList, num int) error {
	if num < 0 {
		return fmt.Errorf("size %d is negative", num)
	}
	return s.resize(l, num)
}

// SetItemShape fixes the shape of every item of l (when it was unknown),
// allocating the items' storage.
func (s *TensorLists) SetItemShape(l *TensorList, shape []int) error {
	if l.ItemShape != nil {
		if !SameShape(l.ItemShape, shape) {
			return fmt.Errorf("item shape %v differs from the list's other items' %v (tflrun keeps one shape per list)", shape, l.ItemShape)
		}
		return nil
	}
	if !FullyDefined(shape) {
		return fmt.Errorf("item shape %v is not fully defined", shape)
	}
	l.ItemShape, l.itemBuf = setShape(l.itemBuf, shape)
	n := l.n
	l.n = 0
	return s.resize(l, n)
}

// resize grows or shrinks l to num items, charging new storage.
func (s *TensorLists) resize(l *TensorList, num int) error {
	itemBytes := 0
	if l.ItemShape != nil {
		e, err := ShapeElements(l.ItemShape, l.ElemType.Size())
		if err != nil {
			return fmt.Errorf("item shape %v: %w", l.ItemShape, err)
		}
		itemBytes = e * l.ElemType.Size()
	}
	if itemBytes > 0 && num > maxInt/itemBytes {
		return fmt.Errorf("a TensorList of %d items of %d bytes: the size overflows (more than any memory bound)", num, itemBytes)
	}
	if num > cap(l.set) {
		if err := s.budget.Reserve(int64(num-cap(l.set)), fmt.Sprintf("a TensorList of %d items", num)); err != nil {
			return err
		}
		set := make([]bool, num)
		copy(set, l.set[:l.n])
		l.set = set
	}
	if need := num * itemBytes; need > cap(l.data) {
		if err := s.budget.Reserve(int64(need-cap(l.data)), fmt.Sprintf("a TensorList of %d items of shape %v (%s)", num, l.ItemShape, l.ElemType)); err != nil {
			return err
		}
		data := make([]byte, need)
		copy(data, l.data[:l.n*l.itemBytes])
		l.data = data
	}
	old := l.n
	if l.itemBytes != itemBytes {
		old = 0 // the items' layout changed: nothing set is kept
	}
	l.set = l.set[:num]
	for i := old; i < num; i++ {
		l.set[i] = false
	}
	l.data = l.data[:num*itemBytes]
	clear(l.data[min(old, num)*itemBytes:])
	l.n, l.itemBytes = num, itemBytes
	return nil
}

const maxInt = int(^uint(0) >> 1)

// setShape copies shape into the storage buf (nil stays nil, an empty
// shape stays non-nil) and returns the copy and the storage.
func setShape(buf, shape []int) (copied, storage []int) {
	if shape == nil {
		return nil, buf
	}
	buf = append(buf[:0], shape...)
	if buf == nil {
		buf = []int{}
	}
	return buf, buf
}

// FullyDefined reports whether shape has a known rank and no unknown
// (negative) dimension.
func FullyDefined(shape []int) bool {
	if shape == nil {
		return false
	}
	for _, d := range shape {
		if d < 0 {
			return false
		}
	}
	return true
}

// CompatibleShapes reports whether a partially known shape (nil: unknown
// rank; -1: unknown dimension) admits shape, as TensorFlow's
// PartialTensorShape::IsCompatibleWith.
func CompatibleShapes(partial, shape []int) bool {
	if partial == nil || shape == nil {
		return true
	}
	if len(partial) != len(shape) {
		return false
	}
	for i, d := range partial {
		if d >= 0 && shape[i] >= 0 && d != shape[i] {
			return false
		}
	}
	return true
}

// MarkSet records that item i was written (through Item).
func (l *TensorList) MarkSet(i int) { l.set[i] = true }
