package deploy_test

import (
	"fmt"
	"testing"

	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/viewtest"
)

func TestPrintForm(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	m := deploy.New(vc, &fakeDeployer{}, "demo", "")
	m.Init()
	fmt.Println(m.View())
	fmt.Println(m.Title())
}
