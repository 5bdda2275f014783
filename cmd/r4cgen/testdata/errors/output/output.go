package output

type A interface{ Get() error }
type B interface{ Get() error }
