package constraint

type Number interface {
	~int | ~float64
	String() string
}
