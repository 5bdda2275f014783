package alias

import "io"

type Closer = io.Closer
