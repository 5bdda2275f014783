package notfound

type SearchClient interface {
	Search(q string) (string, error)
}
