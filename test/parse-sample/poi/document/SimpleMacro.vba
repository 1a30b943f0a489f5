Sub TestMacro()
'
' TestMacro Macro
' This is a test macro
'

'
    ActiveDocument.Paragraphs(1).Range.Text = "This is a macro word processing document"
End Sub

