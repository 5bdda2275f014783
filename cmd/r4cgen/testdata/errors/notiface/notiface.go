package notiface

type SearchClient struct{}
